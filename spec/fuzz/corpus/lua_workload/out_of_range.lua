return { disks = 1000 }
