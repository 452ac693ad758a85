// Tollgate dashboard: the one script of its own. No framework; every page works without it.
(function () {
  "use strict";

  // Copy buttons stay hidden without JavaScript (the secret can still be selected and copied by hand).
  function showCopyButtons(root) {
    root.querySelectorAll("button.copy[hidden]").forEach(function (button) {
      button.hidden = false;
    });
  }

  // Where the Clipboard API is missing (a page served over plain HTTP from another host than localhost), the key
  // is selected and copied with the older command; if that fails too, it stays selected for Ctrl+C.
  function copyBySelection(source) {
    var range = document.createRange();
    range.selectNodeContents(source);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    var copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (e) {
      copied = false;
    }
    status(copied ? "Copied to the clipboard." : "The key is selected: press Ctrl+C (or Cmd+C) to copy it.");
  }

  function status(text) {
    var region = document.getElementById("copy-status");
    if (region) {
      region.textContent = text;
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.copy");
    if (!button) {
      return;
    }
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) {
      return;
    }
    if (!navigator.clipboard) {
      copyBySelection(source);
      return;
    }
    navigator.clipboard.writeText(source.textContent.trim()).then(function () {
      status("Copied to the clipboard.");
    }, function () {
      copyBySelection(source);
    });
  });

  // After htmx swaps a page in, move focus to its content so keyboard and screen-reader users start there.
  document.addEventListener("htmx:afterSettle", function (event) {
    showCopyButtons(document);
    var main = document.getElementById("main");
    if (main && event.detail && event.detail.boosted) {
      main.focus({ preventScroll: false });
    }
  });

  // ---- Playground: stream an answer from the public playground route, token by token; Stop aborts it. ----------
  var running = null;

  function byId(id) {
    return document.getElementById(id);
  }

  function showError(text) {
    var box = byId("pg-error");
    if (box) {
      box.textContent = text;
      box.hidden = !text;
    }
  }

  function setStatus(text) {
    var box = byId("pg-status");
    if (box) {
      box.textContent = text;
    }
  }

  function setRunning(on) {
    var send = byId("pg-send");
    var stop = byId("pg-stop");
    if (send) {
      send.disabled = on;
    }
    if (stop) {
      stop.disabled = !on;
      if (on) {
        stop.focus();
      }
    }
  }

  function errorMessage(status, text) {
    try {
      var parsed = JSON.parse(text);
      if (parsed && parsed.error && parsed.error.message) {
        return parsed.error.message;
      }
    } catch (ignored) {
      // not JSON: fall through to the status
    }
    return "The gateway answered " + status + ".";
  }

  function handleEvent(data, answer, state) {
    if (data === "[DONE]") {
      state.done = true;
      return;
    }
    var chunk;
    try {
      chunk = JSON.parse(data);
    } catch (ignored) {
      return;
    }
    if (chunk.error) {
      showError(chunk.error.message || "The model failed while answering.");
      return;
    }
    if (chunk.usage) {
      state.usage = chunk.usage;
    }
    var choice = chunk.choices && chunk.choices[0];
    if (choice && choice.delta && typeof choice.delta.content === "string") {
      answer.append(choice.delta.content);
    }
  }

  function finished(state, requestId) {
    var parts = [state.done ? "Done." : "The stream ended early."];
    if (state.usage) {
      parts.push(state.usage.prompt_tokens + " prompt + " + state.usage.completion_tokens + " completion tokens.");
    }
    if (requestId) {
      parts.push("Request " + requestId + ".");
    }
    setStatus(parts.join(" "));
  }

  function send(form) {
    if (running) {
      return;
    }
    var answer = byId("pg-answer");
    var model = byId("pg-model").value;
    var system = byId("pg-system").value.trim();
    var message = byId("pg-message").value;
    if (!message.trim()) {
      showError("Write a message first.");
      byId("pg-message").focus();
      return;
    }
    var messages = [];
    if (system) {
      messages.push({ role: "system", content: system });
    }
    messages.push({ role: "user", content: message });
    var headers = { "Content-Type": "application/json" };
    var key = byId("pg-key");
    if (key && key.value.trim()) {
      headers["Authorization"] = "Bearer " + key.value.trim();
    } else if (form.getAttribute("data-mode") === "account") {
      headers[form.getAttribute("data-token-header")] = form.getAttribute("data-token");
    }
    var controller = new AbortController();
    var state = { done: false, usage: null };
    var requestId = null;
    running = controller;
    answer.textContent = "";
    showError("");
    setStatus("Waiting for " + model + "…");
    setRunning(true);
    fetch("/v1/public/chat/completions", {
      method: "POST",
      headers: headers,
      body: JSON.stringify({ model: model, stream: true, stream_options: { include_usage: true }, messages: messages }),
      credentials: "same-origin",
      signal: controller.signal
    }).then(function (response) {
      requestId = response.headers.get("x-request-id");
      if (!response.ok) {
        return response.text().then(function (text) {
          showError(errorMessage(response.status, text) + (requestId ? " (request " + requestId + ")" : ""));
          setStatus("");
        });
      }
      setStatus("Answering…");
      var reader = response.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "";
      function pump() {
        return reader.read().then(function (step) {
          if (step.done) {
            finished(state, requestId);
            return undefined;
          }
          buffer += decoder.decode(step.value, { stream: true });
          var lines = buffer.split("\n");
          buffer = lines.pop();
          lines.forEach(function (line) {
            var text = line.replace(/\r$/, "");
            if (text.indexOf("data:") === 0) {
              handleEvent(text.slice(5).trim(), answer, state);
            }
          });
          return pump();
        });
      }
      return pump();
    }).catch(function (error) {
      if (error && error.name === "AbortError") {
        setStatus("Stopped." + (requestId ? " Request " + requestId + ": the tokens received so far are billed."
            : ""));
      } else {
        showError("The request failed: " + (error && error.message ? error.message : error));
        setStatus("");
      }
    }).then(function () {
      running = null;
      setRunning(false);
    });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form && form.id === "playground-form") {
      event.preventDefault();
      send(form);
    }
  });

  document.addEventListener("click", function (event) {
    if (event.target.closest("#pg-stop") && running) {
      running.abort();
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && event.target.id === "pg-message") {
      event.preventDefault();
      var form = byId("playground-form");
      if (form) {
        form.requestSubmit();
      }
    }
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { showCopyButtons(document); });
  } else {
    showCopyButtons(document);
  }
})();
