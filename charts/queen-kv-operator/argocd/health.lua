-- Argo CD health of a QueenKvCluster (resource.customizations.health.queenkv.io_QueenKvCluster).
-- Reads the kstatus conditions the operator keeps: Stalled (needs a person) is Degraded, Ready is
-- Healthy, anything else (creating, scaling, rolling, a member catching up) is Progressing.
local hs = { status = "Progressing", message = "waiting for the operator to report" }

local function condition(conditions, kind)
  for _, c in ipairs(conditions) do
    if c.type == kind then return c end
  end
  return nil
end

if obj.status == nil or obj.status.conditions == nil then
  return hs
end
local conditions = obj.status.conditions
local generation = obj.metadata and obj.metadata.generation
local stalled = condition(conditions, "Stalled")
local ready = condition(conditions, "Ready")
local reconciling = condition(conditions, "Reconciling")

if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = (stalled.reason or "Stalled") .. ": " .. (stalled.message or "")
elseif generation ~= nil and obj.status.observedGeneration ~= nil and obj.status.observedGeneration < generation then
  hs.message = "the operator has not reconciled generation " .. generation .. " yet"
elseif ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message or "ready"
elseif reconciling ~= nil and reconciling.status == "True" then
  hs.message = (reconciling.reason or "Reconciling") .. ": " .. (reconciling.message or "")
elseif ready ~= nil then
  hs.message = (ready.reason or "NotReady") .. ": " .. (ready.message or "")
end
return hs
