-- month_end.lua: a workload file for mish (`mish --workload examples/workloads/month_end.lua`).
-- Start from a built-in and override any field of mi.workload_fields(); times are in ms.
return {
  base = "batch",            -- built-in to start from
  about = "month-end close: order entry keeps going while the ledger jobs run",
  cpus = 4,
  disks = 8,
  terminals = 20,
  sessions = 60,             -- interactive users (two processes each)
  jobs = 16,                 -- batch jobs admitted up to the job limit (item 3002)
  think_ms = 12000,
  think_dist = "uniform",    -- exponential, constant or uniform (0 .. 2 x mean)
  txn_cpu_ms = 60,
  txn_ios = 10,
  job_cpu_ms = 120,
  job_ms = 600000,
  disk_ms = 9,
  service_dist = "exponential",
  faults_per_io = 0.8,
  memory_pages = 65536,      -- item 3039: 128 MB in 2 KB pages
  seed = 2026,
}
