return { cpus = 2, sessions = 5, jobs = 1, think_dist = 'constant' }
