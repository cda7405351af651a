-- sem.lua: semaphore classes with the longest queues. A process blocking on a semaphore
-- counts in one of three buckets by the queue it joined (1-3, 4-6, 7 or more waiters;
-- items 21088-21090); classes are ranked by blocks weighted by queue length.
local mi = require("mi")
local cli = require("mi.cli")

local opts = cli.parse({
  name = "sem",
  about = "Semaphore classes ranked by contention (blocks by queue length) per interval.",
  options = { { "n", "N", "classes to show", 10 }, { "total", nil, "counts since the start instead of per interval" } },
})

local s = cli.session()
local st, err = s:on("global", { "gmc_semcl_que_1_3", "gmc_semcl_que_4_6", "gmc_semcl_que_7_over" })
if not st then io.stderr:write("sem: cannot enable the semaphore counters: ", tostring(err), "\n") os.exit(1) end
local names = mi.semcl_names()

local out = cli.output(opts, {
  { "class", "class" }, { "name", "semaphore class" }, { "q1_3", "queue 1-3" }, { "q4_6", "queue 4-6" },
  { "q7", "queue 7+" }, { "blocks", "blocks" }, { "weight", "weighted" },
})

-- a source that measures no semaphore class (the Linux host) shows them missing, not as 0 (#30)
local dark = #select(2, cli.undriven(s, "global", { "gmc_semcl_que_1_3", "gmc_semcl_que_4_6", "gmc_semcl_que_7_over" })) == 3 and
  "the host source does not measure the semaphore classes (items 21088-21090)" or nil
local start = s:get("global")
local prev = start
local watch = cli.watch(s)
watch()
local plot = cli.recorder(opts, "sem", { title = "semaphore classes: blocks", ylabel = "blocks per sample" })
cli.loop(opts, function(i)
  local cur = s:get("global")
  local why = watch() or dark   -- an interval that measured nothing shows its figures missing (#30)
  local d = mi.delta(cur, opts.total and start or prev)
  local rows = {}
  for c = 1, #names do
    local a, b, x = d.gmc_semcl_que_1_3[c], d.gmc_semcl_que_4_6[c], d.gmc_semcl_que_7_over[c]
    if a + b + x > 0 then
      -- weight by a typical queue length of each bucket: 2, 5 and 8 waiters
      rows[#rows + 1] = { class = c - 1, name = names[c], q1_3 = a, q4_6 = b, q7 = x, blocks = a + b + x,
                          weight = 2 * a + 5 * b + 8 * x }
    end
  end
  table.sort(rows, function(p, q) if p.weight ~= q.weight then return p.weight > q.weight end return p.class < q.class end)
  for j = #rows, math.floor(opts.n) + 1, -1 do rows[j] = nil end
  if why then
    cli.unmeasured("sem", why)
    rows = { cli.blank({ { class = "-", name = "(not measured)", q1_3 = 0, q4_6 = 0, q7 = 0, blocks = 0, weight = 0 } })[1] }
  else
    local points = {}
    for _, r in ipairs(rows) do points[#points + 1] = { r.name, r.blocks } end
    plot.add(points)
  end
  out.write(rows, { sample = i, title = string.format("sample %d: %d busiest semaphore classes%s", i, why and 0 or #rows,
                                                      opts.total and " (since start)" or "") })
  prev = cur
end)
out.finish()   -- the run's averages (table mode)
plot.finish()
s:close()
