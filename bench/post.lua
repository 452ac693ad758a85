-- wrk script: POST a small chat completion (non-streaming); KEY and MODEL come from the environment.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local key = os.getenv("KEY")
if key and key ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. key
end
wrk.body = '{"model":"' .. (os.getenv("MODEL") or "mock") .. '","max_tokens":16,' ..
           '"messages":[{"role":"user","content":"Say eight words"}]}'
