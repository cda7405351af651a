return { cpus = }
