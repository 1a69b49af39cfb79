-- Argo CD health of a tenon.dev NodeClaim, from the conditions the Tenon agent sets as the claim
-- goes Launched, Registered, Initialized and Ready:
--   Healthy      Ready is True (the message says if the node has drifted or expired and is due
--                for replacement).
--   Degraded     Launched is False: the cloud could not launch it (the message says why).
--   Progressing  being deleted (draining), launching, waiting for the node to register or to
--                become Ready.
local hs = {}
local byType = {}
if obj.status ~= nil and obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    byType[c.type] = c
  end
end
local function isTrue(t)
  return byType[t] ~= nil and byType[t].status == "True"
end
local status = obj.status or {}
if obj.metadata.deletionTimestamp ~= nil then
  hs.status = "Progressing"
  hs.message = "Terminating: draining the node and deleting its instance"
  return hs
end
if isTrue("Ready") then
  hs.status = "Healthy"
  hs.message = "Running as " .. tostring(status.instanceType) .. " (" .. tostring(status.capacityType) .. ", " .. tostring(status.zone) .. ")"
  if isTrue("Drifted") then
    hs.message = hs.message .. "; drifted from its NodePool or NodeClass, due for replacement"
  elseif isTrue("Expired") then
    hs.message = hs.message .. "; expired, due for replacement"
  end
  return hs
end
local launched = byType["Launched"]
if launched ~= nil and launched.status == "False" then
  hs.status = "Degraded"
  hs.message = "Not launched: " .. tostring(launched.message or launched.reason)
  return hs
end
hs.status = "Progressing"
if not isTrue("Launched") then
  hs.message = "Launching"
elseif not isTrue("Registered") then
  hs.message = "Launched " .. tostring(status.providerID) .. ", waiting for its node to register"
else
  hs.message = "Node " .. tostring(status.nodeName) .. " registered, waiting for it to become Ready"
end
return hs
