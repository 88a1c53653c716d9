-- lua/saspu/graph.lua: Graphviz DOT pictures of a domain (value graphs, action graph, class problems) and of a plan's partial order.
--
-- graph.domain(dom) -> DOT text:
--   one cluster per variable: its value graph G(v), an edge pre -> post per action; edges on a
--     cycle are bold, requestable actions are marked with '*' and drawn blue;
--   the action graph: one box per action (requestable ones filled), pre edges (solid) from the
--     setter of each action's pre, requester edges (dashed, labelled var = value) from the setter
--     of each prevail; a value no action sets is a plain-text node;
--   for a domain outside the classes, every problem cycle and each connecting path in red.
-- graph.plan(dom, start, goal) -> DOT text | nil, why: the plan's steps and the partial order
--   the planner built, edges told apart by kind (pre solid, prevail dashed blue, threat dotted
--   red, restore bold green), each labelled with its kind.
local format, concat, ipairs, pairs, tostring = string.format, table.concat, ipairs, pairs, tostring

local M = {}

-- A DOT double-quoted identifier.
local function q(s)
  return '"' .. tostring(s):gsub('[\\"]', '\\%0'):gsub("\n", "\\n") .. '"'
end

local function value_node(var, value)
  return q("value " .. var .. " = " .. tostring(value))
end

local function action_node(name)
  return q("action " .. name)
end

-- The action that sets var = value, per variable: setters[var][value] = action name.
local function setters_of(actions)
  local setters = {}
  for _, a in ipairs(actions) do
    setters[a.var] = setters[a.var] or {}
    setters[a.var][tostring(a.post)] = a.name
  end
  return setters
end

-- What the class problems put in red: cycle actions, path nodes, path edges.
local function problem_marks(dom)
  local marks = { actions = {}, cycle = {}, ghosts = {}, edges = {}, problems = dom:problems() }
  for _, p in ipairs(marks.problems) do
    for _, a in ipairs(p.cycle) do
      marks.actions[a] = true
      marks.cycle[a] = true
    end
    local path = p.path
    for i, node in ipairs(path) do
      local id = node.action and action_node(node.action) or value_node(node.variable, node.value)
      if node.action then marks.actions[node.action] = true else marks.ghosts[id] = true end
      if i > 1 then
        local before = path[i - 1]
        local prev = before.action and action_node(before.action)
          or value_node(before.variable, before.value)
        local from, to = prev, id
        if not node.forward then from, to = id, prev end
        marks.edges[from .. "->" .. to .. ":" .. node.edge] = true
      end
    end
  end
  return marks
end

local function value_graphs(out, dom, actions, marks)
  for i, v in ipairs(dom:variables()) do
    out[#out + 1] = format("  subgraph cluster_%d {\n    label=%s; color=gray;", i, q(v.name))
    for _, value in ipairs(v.values) do
      out[#out + 1] = format("    %s [label=%s, shape=ellipse];", value_node(v.name, value),
        q(value))
    end
    for _, a in ipairs(actions) do
      if a.var == v.name then
        local attrs = { "label=" .. q(a.name .. (a.requestable and " *" or "")) }
        if a.in_cycle then attrs[#attrs + 1] = "style=bold" end
        if a.requestable then attrs[#attrs + 1] = "fontcolor=blue" end
        if marks.cycle[a.name] then attrs[#attrs + 1] = "color=red" end
        out[#out + 1] = format("    %s -> %s [%s];", value_node(v.name, a.pre),
          value_node(v.name, a.post), concat(attrs, ", "))
      end
    end
    out[#out + 1] = "  }"
  end
end

local function action_graph(out, actions, marks)
  local setters = setters_of(actions)
  local ghosts, edges = {}, {}
  -- The node that sets var = value: its action, or a ghost drawn once.
  local function setter(var, value)
    local a = setters[var] and setters[var][tostring(value)]
    if a then return action_node(a) end
    local id = value_node(var, value)
    if not ghosts[id] then
      ghosts[id] = true
      ghosts[#ghosts + 1] = format("    %s [label=%s, shape=plaintext%s];", id,
        q("(no action sets " .. var .. " = " .. tostring(value) .. ")"),
        marks.ghosts[id] and ", fontcolor=red" or "")
    end
    return id
  end
  local function edge(from, to, kind, attrs)
    if marks.edges[from .. "->" .. to .. ":" .. kind] then attrs = attrs .. ", color=red, penwidth=2" end
    edges[#edges + 1] = format("    %s -> %s [%s];", from, to, attrs)
  end
  out[#out + 1] = "  subgraph cluster_actions {\n    label=\"action graph\"; color=gray;"
  for _, a in ipairs(actions) do
    local attrs = { "shape=box", "label=" .. q(a.name) }
    if a.requestable then attrs[#attrs + 1] = "style=filled, fillcolor=lightblue" end
    if marks.actions[a.name] then attrs[#attrs + 1] = "color=red, penwidth=2" end
    out[#out + 1] = format("    %s [%s];", action_node(a.name), concat(attrs, ", "))
  end
  for _, a in ipairs(actions) do
    edge(setter(a.var, a.pre), action_node(a.name), "pre", "label=\"pre\"")
    local vars = {}
    for var in pairs(a.prevail) do vars[#vars + 1] = var end
    table.sort(vars)
    for _, var in ipairs(vars) do
      local value = a.prevail[var]
      edge(setter(var, value), action_node(a.name), "prevail",
        "style=dashed, label=" .. q(var .. " = " .. tostring(value)))
    end
  end
  for _, line in ipairs(ghosts) do out[#out + 1] = line end
  for _, line in ipairs(edges) do out[#out + 1] = line end
  out[#out + 1] = "  }"
end

--- Part of module saspu: the Domain methods written in Lua (LDoc merges it, config.ld).
-- @module saspu

--- @type Domain

--- A Graphviz DOT picture of the domain: its value graphs, its action graph and, for a
-- domain outside the classes, every problem in red (`saspu graph -o x.svg` renders it).
-- @function Domain:graph
-- @treturn string DOT text
-- @raise "saspu.Domain is closed".
function M.domain(dom)
  local actions = dom:actions()
  local marks = problem_marks(dom)
  local title = format("%s: %s", dom.name, dom.class)
  if #marks.problems > 0 then
    title = title .. format(" (%d problem%s in red)", #marks.problems,
      #marks.problems == 1 and "" or "s")
  end
  local out = {
    "digraph " .. q(dom.name) .. " {",
    "  label=" .. q(title) .. "; labelloc=t; rankdir=LR; fontname=Helvetica;",
    "  node [fontname=Helvetica]; edge [fontname=Helvetica, fontsize=10];",
  }
  value_graphs(out, dom, actions, marks)
  action_graph(out, actions, marks)
  out[#out + 1] = "}"
  return concat(out, "\n") .. "\n"
end

local order_style = {
  pre = "color=black",
  prevail = "style=dashed, color=blue, fontcolor=blue",
  threat = "style=dotted, color=red, fontcolor=red",
  restore = "style=bold, color=darkgreen, fontcolor=darkgreen",
}
M.order_kinds = { "pre", "prevail", "threat", "restore" }

--- A Graphviz DOT picture of the shortest plan's partial order (pre edges black,
-- prevail dashed blue, threat dotted red, restore bold green).
-- @function Domain:plan_graph
-- @param start as for `Domain:plan`
-- @param goal as for `Domain:plan`
-- @treturn string DOT text; or `nil`, `why` as `Domain:plan`'s
-- @raise the errors of `Domain:plan_order`.
function M.plan(dom, start, goal)
  local plan, orders = dom:plan_order(start, goal)
  if plan == nil then return nil, orders end
  local out = {
    "digraph " .. q(dom.name .. " plan") .. " {",
    "  label=" .. q(format("%s: plan of %d actions and its partial order", dom.name, #plan))
      .. "; labelloc=t; rankdir=LR; fontname=Helvetica;",
    "  node [shape=box, fontname=Helvetica]; edge [fontname=Helvetica, fontsize=10];",
  }
  for i, name in ipairs(plan) do
    out[#out + 1] = format("  %s [label=%s];", action_node(name), q(i .. ". " .. name))
  end
  for _, o in ipairs(orders) do
    out[#out + 1] = format("  %s -> %s [label=%s, %s];", action_node(o.from), action_node(o.to),
      q(o.kind), order_style[o.kind] or "")
  end
  out[#out + 1] = "}"
  return concat(out, "\n") .. "\n"
end

return M
