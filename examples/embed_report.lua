-- embed_report.lua: the analysis half of examples/embed.c. The host program sets the
-- global `system` (its own MI system) and runs this file before doing its work; we
-- enable the counters we want and hand back report(), which it calls when done.
local mi = require("mi")
local s = mi.open({ system = system })
-- orders_placed, work_list, sorter_busy and ints_sorted are the program's own counters (mi_userdef.h)
assert(s:on("global", { "gmt_cs_process", "gmt_idle", "gmc_cs_process", "orders_placed", "work_list", "sorter_busy" }))
assert(s:on("process", { "pmt_process_time", "pmc_launch", "pmc_disc_write", "pmc_disc_write_size", "ints_sorted" }))
assert(s:on("io", { "imc_completed_write", "imc_write_xfer_size", "imt_wt_round_trip_time" }, { ldev = 1 }))

return function(checksum)
  local g, procs, disk = s:get("global"), s:get("process"), s:get("io")[1]
  local busy = s:ms(g.gmt_cs_process)
  local total = busy + s:ms(g.gmt_idle)
  print(string.format("embed: %d workers sorted and wrote; checksum %d", #procs, checksum))
  print(string.format("CPU: %.1f ms busy of %.1f ms measured (%.0f%%), %d dispatches",
    busy, total, mi.pct(busy, total), g.gmc_cs_process))
  table.sort(procs, function(a, b) return a.pmt_process_time > b.pmt_process_time end)
  print(string.format("orders placed %d; work list %.2f jobs long on average; sorters busy %.1f ms",
    g.orders_placed, total > 0 and s:ms(g.work_list) / total or 0, s:ms(g.sorter_busy)))
  print(string.format("%-10s %10s %6s %8s %10s %12s", "program", "cpu ms", "share", "writes", "KB written", "ints sorted"))
  for _, p in ipairs(procs) do
    print(string.format("%-10s %10.1f %5.0f%% %8d %10.1f %12d", p.program_name:match("^[^.]+"), s:ms(p.pmt_process_time),
      mi.pct(p.pmt_process_time, g.gmt_cs_process), p.pmc_disc_write, p.pmc_disc_write_size / 1024, p.ints_sorted))
  end
  print(string.format("disk LDEV %d: %d writes, %.1f KB, %.3f ms average", disk.ldev, disk.imc_completed_write,
    disk.imc_write_xfer_size / 1024, disk.imc_completed_write > 0 and s:ms(disk.imt_wt_round_trip_time) / disk.imc_completed_write or 0))
  s:close()
end
