-- config.lua: every system configuration item (3001-3046) with its name, value and meaning.
-- Mask and boolean-array items are shown as bit lists; text items as text.
local mi = require("mi")
local cli = require("mi.cli")

local opts = cli.parse({
  name = "config",
  about = "All configuration items (AIFSCGET 3001-3046): number, name, value, settable, meaning.",
  sampling = false,
  options = {
    { "csv", nil, "write CSV instead of a table" }, { "json", nil, "write JSON instead of a table" },
    { "match", "PATTERN", "only items whose name contains PATTERN (case-insensitive)" },
  },
})

local s = cli.session()
local values, err = s:config()
if not values then io.stderr:write("config: AIFSCGET failed: ", tostring(err), "\n") os.exit(1) end

-- On the Linux host a few items are read from /proc (and /etc/machine-id); one whose file could not be
-- read keeps a built-in default, which is no measurement: shown as missing, said why (#30).
local dark = {}
if s:info().source == "host" then
  s:on("global", { "gmc_cur_free_main_mem_pg" })
  local g = s:get("global")
  local why = cli.watch(s)()
  if why then
    for _, n in ipairs({ 3035, 3038, 3039, 3046 }) do dark[n] = true end
  elseif not g or (g.gmc_cur_free_main_mem_pg or 0) == 0 then   -- /proc/meminfo gives the size and the free pages
    dark[3039] = true
    why = "the host's memory size was not read (/proc/meminfo)"
  end
  if why then cli.unmeasured("config", why) end
end

-- The set bits of a mask or boolean array, in numeric order.
local function bits(v)
  local on = {}
  for k, b in pairs(v) do if b == true or b == 1 then on[#on + 1] = k end end
  table.sort(on)
  return on
end

-- Shows a value the way a person reads it.
local function show(v)
  if v == cli.NONE then return v end
  if type(v) == "table" then
    local on = bits(v)
    for j, k in ipairs(on) do on[j] = tostring(k) end
    return #on > 0 and ("bits " .. table.concat(on, " ")) or "none"
  end
  if type(v) == "boolean" then return v and "true" or "false" end
  return tostring(v)
end

-- JSON keeps the types (#16.10): numbers as numbers, flags as booleans, masks as bit lists.
local json = opts.json
local rows = {}
for _, c in ipairs(mi.config_items) do
  if not opts.match or c.name:lower():find(opts.match:lower(), 1, true) then
    local v = values[c.item]
    if dark[c.item] then v = cli.NONE end
    rows[#rows + 1] = { item = c.item, name = c.name, meaning = c.label or "",
                        value = not json and show(v) or v ~= cli.NONE and type(v) == "table" and bits(v) or v,
                        put = json and c.put == true or not json and (c.put and "yes" or "no"),
                        range = not json and (c.put and c.min and string.format("%s..%s", c.min, c.max) or "") or nil,
                        min = json and c.put and c.min or nil, max = json and c.put and c.max or nil }
  end
end
local cols = { { "item", "item" }, { "name", "name" }, { "value", "value" }, { "put", "PUT" } }
if json then cols[#cols + 1] = { "min", "min" }; cols[#cols + 1] = { "max", "max" }
else cols[#cols + 1] = { "range", "range" } end
cols[#cols + 1] = { "meaning", "meaning" }
cli.output(opts, cols).write(rows, { title = "system configuration" })
s:close()
