// Tables: the Play form (offer what the chosen game allows) and, on a table's page, the
// decision asked (legal actions as buttons, the time left), from the board's polls.
(function () {
  "use strict";

  // ------------------------------------------------------------------ the Play form
  const form = document.getElementById("table-form");
  if (form) {
    const rules = document.getElementById("id_rules");
    const seats = document.getElementById("id_seats");
    const seat = document.getElementById("id_seat");
    const seatsOf = {};
    (form.dataset.rulesSeats || "").split(";").forEach((pair) => {
      const [id, counts] = pair.split(":");
      if (id) seatsOf[id] = counts.split(" ").map(Number);
    });

    const update = () => {
      const game = rules.value;
      const allowed = seatsOf[game] || [];
      Array.from(seats.options).forEach((option) => {
        option.disabled = option.hidden = !allowed.includes(Number(option.value));
      });
      if (seats.selectedOptions[0] && seats.selectedOptions[0].disabled) {
        seats.value = String(allowed[0]);
      }
      const count = Number(seats.value);
      Array.from(seat.options).forEach((option) => {
        option.disabled = option.hidden = Number(option.value) >= count;
      });
      if (Number(seat.value) >= count) seat.value = "0";
      // Seats beyond the game's are not sent: hidden fields are disabled.
      form.querySelectorAll(".bot-field").forEach((box) => {
        const used = Number(box.dataset.bot) < count;
        box.hidden = !used;
        const select = box.querySelector("select");
        select.disabled = !used;
        Array.from(select.options).forEach((option) => {
          const plays = option.dataset.plays;
          // House bots (empty data-plays) play every game.
          const fits = plays === undefined || plays === "" || plays.split(" ").includes(game);
          option.disabled = option.hidden = !fits;
        });
        if (select.selectedOptions[0] && select.selectedOptions[0].disabled) select.value = "";
      });
      form.querySelectorAll("fieldset[data-options]").forEach((box) => {
        const mine = box.dataset.options === game;
        box.hidden = !mine;
        box.querySelectorAll("input, select").forEach((input) => { input.disabled = !mine; });
      });
    };
    rules.addEventListener("change", update);
    seats.addEventListener("change", update);
    update();
  }

  // ------------------------------------------------------------------ a table's decision
  const panel = document.getElementById("decision");
  const data = document.getElementById("table-data");
  if (!panel || !data) return;
  const line = document.getElementById("decision-line");
  const actions = document.getElementById("decision-actions");
  const failure = document.getElementById("decision-error");
  const status = document.getElementById("table-status");
  const token = panel.querySelector("[name=csrfmiddlewaretoken]").value;
  let shown = null; // the request id whose buttons are on the page
  let deadline = 0;
  let sending = false; // an answer is being posted
  // The page's own memory of what the server took (the act's reply), and the latest request
  // id seen. The replies of polls and of the act cross on the way (a poll read before the
  // answer was stored may arrive after the act's reply; the next decision may arrive before
  // it): a reply is only as new as its request id, and those only grow in a game.
  let taken = null; // {request, action}
  let latest = -1;

  const seconds = () => Math.max(0, Math.ceil((deadline - Date.now()) / 1000));

  function tick() {
    if (shown === null) return;
    const left = seconds();
    const clock = document.getElementById("decision-clock");
    if (clock) {
      clock.textContent = left + " s left";
      clock.classList.toggle("urgent", left <= 10);
    }
  }
  window.setInterval(tick, 250);

  function render(body) {
    let decision = body.decision;
    let chosen = body.answered || null;
    const request = decision ? decision.request : chosen ? chosen.request : null;
    if (request !== null && request < latest) return; // about a decision already past
    if (request !== null) latest = request;
    if (taken && taken.request === latest && (!decision || decision.request === taken.request)) {
      // Nothing newer asked (this reply may even have been read before our answer was
      // stored, or as the game ended): the answer the server took stands.
      chosen = taken;
      decision = null;
    }
    status.textContent = body.status === "queued" ? "waiting for a worker" : body.status;
    status.className = "badge status-" + body.status;
    const leave = document.getElementById("leave-form");
    if (leave) leave.hidden = body.status !== "queued"; // only a game not dealt yet is left
    panel.dataset.request = decision ? String(decision.request) : "";
    if (!decision) {
      shown = null;
      actions.replaceChildren();
      panel.classList.remove("your-turn");
      if (chosen) {
        failure.hidden = true;
        line.textContent = "You chose “" + chosen.action + "”. The bots are playing…";
      } else if (!sending) {
        line.textContent = body.status === "queued" ? "Waiting for a worker to deal the game…" : "The bots are playing…";
      }
      return;
    }
    deadline = Date.now() + decision.seconds_left * 1000;
    if (decision.request === shown) return;
    shown = decision.request;
    failure.hidden = true;
    panel.classList.add("your-turn");
    const hand = decision.observation && decision.observation.hand;
    line.replaceChildren(
      Object.assign(document.createElement("strong"), { textContent: "Your move" }),
      document.createTextNode(" (" + decision.decision + (hand ? "; your hand: " + hand.join(" ") : "") + ") "),
      Object.assign(document.createElement("span"), { id: "decision-clock", className: "decision-clock" }),
    );
    tick();
    actions.replaceChildren(...decision.legal_actions.map((action) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "button action-button";
      button.textContent = action;
      button.dataset.action = action;
      button.disabled = sending; // an answer to the last decision is still on its way
      button.addEventListener("click", () => answer(decision.request, action));
      return button;
    }));
  }

  function answer(request, action) {
    if (sending) return;
    sending = true;
    actions.querySelectorAll("button").forEach((button) => { button.disabled = true; });
    fetch(panel.dataset.act, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": token },
      body: JSON.stringify({ request: request, action: action }),
    })
      .then((response) => response.json().then((body) => ({ ok: response.ok, body: body })))
      .then(({ ok, body }) => {
        if (!ok) throw Object.assign(new Error(body.detail || "the answer was refused"), { code: body.code });
        sending = false;
        taken = { request: request, action: action };
        render(body);
      })
      .catch((error) => {
        sending = false;
        if (error.code === "table_stopped") {
          // The game is over on our side (its worker gone): nothing left to answer. The
          // board's next poll sees the table failed and reloads to say so.
          failure.textContent = "Not taken: " + error.message;
          failure.hidden = false;
          status.textContent = "failed";
          status.className = "badge status-failed";
          actions.replaceChildren();
          return;
        }
        if (request !== shown) return; // the game moved on meanwhile: the page shows where
        failure.textContent = "Not taken: " + error.message;
        failure.hidden = false;
      })
      .finally(() => {
        // The buttons of the decision shown (this one refused, or the next one asked).
        actions.querySelectorAll("button").forEach((button) => { button.disabled = false; });
      });
  }

  render(JSON.parse(data.textContent));
  document.addEventListener("replay:live", (event) => render(event.detail));
})();
