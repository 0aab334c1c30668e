// The browser editor (/editor/<draft>/): Ace over the draft's text area, saved as the author types.
//
// The text area stays in the form: every button (Save, Run a test game,
// Submit) posts the text it holds, which follows the editor. A change is
// saved after a pause in typing (and by Ctrl-S / Cmd-S) through the save URL,
// which answers JSON; a change not saved yet when the page is left is sent
// with the page's CSRF token by a beacon. Without JavaScript the text area
// is the editor and Save posts it.
(function () {
  "use strict";

  var SAVE_AFTER_MS = 1200;

  var form = document.getElementById("editor-form");
  var holder = document.getElementById("code-editor");
  if (!form || !holder || !window.ace) {
    return;
  }
  var textarea = form.querySelector("textarea[name=source]");
  var status = document.getElementById("save-status");
  var saveUrl = form.getAttribute("data-save-url");
  var token = form.querySelector("input[name=csrfmiddlewaretoken]").value;

  // Ace injects no style element in strict-CSP mode: its stylesheet is linked by the page.
  window.ace.config.set("useStrictCSP", true);
  window.ace.config.set("basePath", holder.getAttribute("data-ace-base"));
  holder.hidden = false;
  textarea.hidden = true;
  var editor = window.ace.edit(holder, {
    mode: "ace/mode/" + holder.getAttribute("data-mode"),
    value: textarea.value,
    useWorker: false,
    fontSize: 14,
    tabSize: 4,
    useSoftTabs: true,
    showPrintMargin: false,
    wrap: false,
    // Tab indents in the code, so a keyboard user needs a way out: Esc leaves the text for
    // the editor's box, where Tab moves on through the page and Enter edits again.
    enableKeyboardAccessibility: true,
  });
  editor.clearSelection();
  editor.moveCursorTo(0, 0);
  // Screen readers name the editor's input as the label names the text area.
  editor.textInput.getElement().setAttribute("aria-label", "Code");
  // The page's hint of those keys, shown where the editor is (the text area needs none).
  var keys = document.getElementById("editor-keys");
  if (keys) {
    keys.hidden = false;
    editor.renderer.scroller.setAttribute("aria-describedby", keys.id);
  }

  var timer = null;
  var dirty = false;
  var saving = false;

  function show(text) {
    status.textContent = text;
  }

  function sync() {
    textarea.value = editor.getValue();
  }

  function save() {
    if (timer !== null) {
      window.clearTimeout(timer);
      timer = null;
    }
    if (!dirty || saving) {
      return;
    }
    sync();
    dirty = false;
    saving = true;
    show("Saving...");
    window
      .fetch(saveUrl, {
        method: "POST",
        body: new FormData(form),
        headers: { Accept: "application/json", "X-CSRFToken": token },
        credentials: "same-origin",
      })
      .then(function (response) {
        return response.json().then(function (answer) {
          if (answer.saved) {
            show("Saved " + answer.saved_at);
          } else {
            dirty = true;
            show("Not saved: " + answer.error);
          }
        });
      })
      .catch(function () {
        dirty = true;
        show("Not saved: the site cannot be reached; it is tried again as you type.");
      })
      .then(function () {
        saving = false;
        if (dirty && timer === null) {
          timer = window.setTimeout(save, SAVE_AFTER_MS);
        }
      });
  }

  editor.session.on("change", function () {
    sync();
    dirty = true;
    show("Unsaved changes");
    if (timer !== null) {
      window.clearTimeout(timer);
    }
    timer = window.setTimeout(save, SAVE_AFTER_MS);
  });

  editor.commands.addCommand({
    name: "save",
    bindKey: { win: "Ctrl-S", mac: "Command-S" },
    exec: function () {
      dirty = true;
      save();
    },
  });

  form.addEventListener("submit", function () {
    // The button posts the text itself: no autosave races it.
    sync();
    dirty = false;
    if (timer !== null) {
      window.clearTimeout(timer);
      timer = null;
    }
  });

  window.addEventListener("pagehide", function () {
    if (dirty && navigator.sendBeacon) {
      sync();
      navigator.sendBeacon(saveUrl, new FormData(form));
      dirty = false;
    }
  });
})();
