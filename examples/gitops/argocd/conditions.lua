-- Argo CD health of a tenon.dev NodePool, NodeClass or Provisioner (tenon.dev/v1alpha5), read
-- from the conditions the Tenon agent sets:
--   Healthy      Ready is True for the object's current generation.
--   Degraded     Ready is False; the message is that of the first other False condition
--                (ValidationSucceeded, NodeClassReady, SubnetsReady, ...), which says what to fix.
--   Progressing  being deleted, no Ready condition yet (is the agent running?), or the agent has
--                not looked at the latest generation yet.
local hs = {}
local conditions = {}
if obj.status ~= nil and obj.status.conditions ~= nil then
  conditions = obj.status.conditions
end
if obj.metadata.deletionTimestamp ~= nil then
  hs.status = "Progressing"
  hs.message = "Being deleted"
  return hs
end
local ready = nil
for _, c in ipairs(conditions) do
  if c.type == "Ready" then
    ready = c
  end
end
if ready == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Tenon agent to set the Ready condition (is the agent running?)"
  return hs
end
local generation = obj.metadata.generation
if generation ~= nil and ready.observedGeneration ~= nil and ready.observedGeneration < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the Tenon agent to observe generation " .. tostring(generation)
  return hs
end
if ready.status == "True" then
  hs.status = "Healthy"
  hs.message = "Ready"
  return hs
end
if ready.status == "False" then
  hs.status = "Degraded"
  for _, c in ipairs(conditions) do
    if c.type ~= "Ready" and c.status == "False" and c.message ~= nil and c.message ~= "" then
      hs.message = c.type .. ": " .. c.message
      return hs
    end
  end
  hs.message = ready.message
  if hs.message == nil or hs.message == "" then
    hs.message = "Ready is False (" .. tostring(ready.reason) .. ")"
  end
  return hs
end
hs.status = "Progressing"
hs.message = "Ready is " .. tostring(ready.status)
return hs
