/* The decision panel under a finished match's replay, for the owner of a seat's bot
 * (staff: every seat).
 *
 * The page embeds {url, seats: [{seat, name, version}]} (#study-data); the
 * decisions come from url (GET /api/matches/<id>/decisions/): for each, the
 * observation the bot was sent, the action played, the time, the note and
 * stderr, and the index of its decision event in the log's events. The replay
 * (replay.js) announces each step it shows ("replay:step", with each step's
 * last event index); the panel shows the studied seat's decisions made at that
 * step, and [ / ] (or the buttons) ask the replay for the step of the seat's
 * previous or next decision ("replay:goto"). Everything a bot wrote is set as
 * text, never as HTML.
 */
(function () {
  "use strict";

  const root = document.getElementById("replay");
  const source = document.getElementById("study-data");
  const box = document.getElementById("study");
  if (!root || !source || !box) return;

  const study = JSON.parse(source.textContent);
  const el = (id) => document.getElementById(id);
  const panel = el("study-panel");
  const position = el("study-position");
  const picker = el("study-seat");
  const buttons = { prev: el("study-prev"), next: el("study-next") };

  let seats = null; // the API's seats, each with its decisions, once read
  let chosen = study.seats.length ? study.seats[0].seat : null; // the seat studied
  let current = 0; // the replay's step
  let stepEnds = []; // each step's last event index

  function node(tag, className, text) {
    const n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined) n.textContent = text;
    return n;
  }
  const money = (n) => (typeof n === "number" ? "$" + n.toLocaleString("en-US") : String(n));
  const ms = (n) => n.toLocaleString("en-US", { maximumFractionDigits: 1 }) + " ms";

  // The step showing an event: the first whose last event is at or after it.
  function stepOf(event) {
    let low = 0;
    let high = stepEnds.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (stepEnds[middle] < event) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  const studied = () => (seats || []).find((s) => s.seat === chosen) || null;

  // ------------------------------------------------------------------ the observation, readable

  function diceText(dice) {
    if (Array.isArray(dice)) return dice.join(" ");
    if (!dice || typeof dice !== "object") return "";
    return Object.keys(dice)
      .filter((kind) => Array.isArray(dice[kind]) && dice[kind].length)
      .map((kind) => (kind === "die" ? "" : kind + " ") + dice[kind].join(" "))
      .join(" · ");
  }

  function fact(list, label, value) {
    if (value === "" || value === null || value === undefined) return;
    list.appendChild(node("dt", "", label));
    list.appendChild(node("dd", "", String(value)));
  }

  // The key parts of an observation (docs/observation.md) of any rule system, where present.
  function summary(obs) {
    const wrap = node("div", "obs-summary");
    const facts = node("dl", "obs-facts");
    if (obs.round) fact(facts, "Round", obs.round + (obs.rounds ? " of " + obs.rounds : ""));
    if (obs.turn) fact(facts, "Turn", obs.turn + (obs.turns ? " of " + obs.turns : ""));
    fact(facts, "Decision", obs.decision);
    if (obs.roll) fact(facts, "Roll", diceText(obs.roll.dice || obs.roll));
    if (Array.isArray(obs.hand)) fact(facts, "Hand", obs.hand.join(" "));
    if (Array.isArray(obs.black_dice) && obs.black_dice.length) fact(facts, "Black dice", obs.black_dice.join(" "));
    if (Array.isArray(obs.money)) {
      fact(facts, "Money", obs.money.map((m, s) => (s === obs.seat ? "you " : "seat " + s + " ") + money(m)).join(" · "));
    }
    if (Array.isArray(obs.chips)) fact(facts, "Chips", obs.chips.map((c, s) => (s === obs.seat ? "you " : "seat " + s + " ") + c).join(" · "));
    wrap.appendChild(facts);
    if (Array.isArray(obs.casinos) && obs.casinos.length) {
      const table = node("table", "table compact obs-casinos");
      const head = node("tr");
      ["Casino", "Notes", "Dice"].forEach((label) => head.appendChild(node("th", "", label)));
      const thead = node("thead");
      thead.appendChild(head);
      const body = node("tbody");
      obs.casinos.forEach((c) => {
        const row = node("tr");
        const notes = Array.isArray(c.notes) ? c.notes : Array.isArray(c.cards) ? c.cards : [];
        const dice = c.dice && typeof c.dice === "object" ? c.dice : {};
        const owned = Object.keys(dice).map((owner) => (/^\d+$/.test(owner) ? (Number(owner) === obs.seat ? "you" : "seat " + owner) : owner) + " " + dice[owner]);
        row.appendChild(node("td", "", String(c.casino) + (c.tile ? " (" + c.tile + ")" : "") + (c.closed ? " closed" : "")));
        row.appendChild(node("td", "", notes.map(money).join(" ")));
        row.appendChild(node("td", "", owned.join(", ")));
        body.appendChild(row);
      });
      table.appendChild(thead);
      table.appendChild(body);
      const scroll = node("div", "table-wrap");
      scroll.appendChild(table);
      wrap.appendChild(scroll);
    }
    return wrap;
  }

  // ------------------------------------------------------------------ one decision

  function textBlock(title, text, className, none) {
    const part = node("div", "study-text");
    part.appendChild(node("h4", "", title));
    if (text) part.appendChild(node("pre", className, text));
    else part.appendChild(node("p", "muted small", none));
    return part;
  }

  function decisionView(decision, number, total, limit) {
    const view = node("article", "study-decision");
    view.dataset.move = String(decision.move);
    const title = node("h3", "", "Decision " + number + " of " + total);
    if (decision.fault) title.appendChild(node("span", "badge status-failed", "fault: " + decision.fault.kind));
    else if (decision.fallback) title.appendChild(node("span", "badge", "fallback"));
    view.appendChild(title);

    const facts = node("dl", "study-facts");
    facts.appendChild(node("dt", "", "Answer"));
    const answer = node("dd");
    answer.appendChild(node("code", "study-answer", decision.action));
    facts.appendChild(answer);
    facts.appendChild(node("dt", "", "Time"));
    const time = node("dd", "study-time");
    if (typeof decision.ms === "number") {
      time.appendChild(node("span", "study-ms", ms(decision.ms) + " of " + ms(limit)));
      const bar = node("span", "time-bar");
      const fill = node("span", "time-fill");
      fill.style.width = Math.min(100, (100 * decision.ms) / limit) + "%";
      bar.appendChild(fill);
      time.appendChild(bar);
    } else {
      time.textContent = "not recorded";
    }
    facts.appendChild(time);
    if (decision.request !== null) fact(facts, "Request", "#" + decision.request);
    fact(facts, "Move", "#" + (decision.move + 1) + " of the game");
    view.appendChild(facts);

    if (decision.fault) {
      view.appendChild(node("p", "alert error study-fault", "The bot faulted here (" + decision.fault.kind + "): " +
        decision.fault.message + ". The referee's random policy played “" + decision.action + "” instead."));
    } else if (decision.fallback) {
      view.appendChild(node("p", "muted small", "The bot had faulted before this decision: the referee's random policy played it."));
    }

    const legal = node("div", "study-legal");
    legal.appendChild(node("h4", "", "Legal actions (" + decision.legal_actions.length + ")"));
    const list = node("ul", "legal-actions");
    decision.legal_actions.forEach((action) => {
      const item = node("li", action === decision.action ? "chosen" : "");
      item.appendChild(node("code", "", action));
      list.appendChild(item);
    });
    legal.appendChild(list);
    view.appendChild(legal);

    view.appendChild(textBlock("Note", decision.note, "bot-note", "No note."));
    view.appendChild(textBlock("stderr", decision.stderr, "bot-stderr", "Nothing on stderr."));
    if (decision.truncated) view.appendChild(node("p", "truncated small", "✂ Cut: the bot wrote more than the referee keeps of a decision."));

    const observation = node("details", "study-observation");
    observation.open = true;
    observation.appendChild(node("summary", "", "Observation, as the bot received it"));
    observation.appendChild(summary(decision.observation));
    const raw = node("details", "study-json");
    raw.appendChild(node("summary", "small", "JSON"));
    raw.appendChild(node("pre", "observation-json", JSON.stringify(decision.observation, null, 2)));
    observation.appendChild(raw);
    view.appendChild(observation);
    return view;
  }

  // ------------------------------------------------------------------ the panel at a step

  function draw() {
    const seat = studied();
    if (!seat) return;
    const decisions = seat.decisions;
    const steps = decisions.map((d) => stepOf(d.event));
    const here = decisions.filter((_, k) => steps[k] === current);
    const before = steps.filter((s) => s < current).length;
    buttons.prev.disabled = before === 0;
    buttons.next.disabled = !steps.some((s) => s > current);
    box.dataset.seat = String(seat.seat);
    box.dataset.decisions = String(decisions.length);
    box.dataset.shown = here.map((d) => d.move).join(" ");
    if (here.length) {
      position.textContent = "Decision " + (before + 1) + " of " + decisions.length;
      panel.replaceChildren(...here.map((d, k) => decisionView(d, before + k + 1, decisions.length, seat.decision_ms)));
    } else {
      position.textContent = decisions.length ? before + " of " + decisions.length + " decisions made" : "No decisions";
      const where = decisions.length
        ? "No decision of seat " + seat.seat + " at this step: ] jumps to its next one, [ to its previous."
        : "Seat " + seat.seat + " made no decision in this game.";
      panel.replaceChildren(node("p", "muted study-none", where));
    }
  }

  function jump(direction) {
    const seat = studied();
    if (!seat || !stepEnds.length) return;
    const steps = seat.decisions.map((d) => stepOf(d.event));
    const target = direction > 0 ? steps.find((s) => s > current) : steps.filter((s) => s < current).pop();
    if (target !== undefined) root.dispatchEvent(new CustomEvent("replay:goto", { detail: { step: target } }));
  }

  root.addEventListener("replay:step", (event) => {
    current = event.detail.step;
    stepEnds = event.detail.events;
    draw();
  });
  buttons.prev.addEventListener("click", () => jump(-1));
  buttons.next.addEventListener("click", () => jump(1));
  buttons.prev.disabled = buttons.next.disabled = true;
  picker.addEventListener("change", () => {
    chosen = Number(picker.value);
    draw();
  });
  const typing = (target) => Boolean(target.closest && target.closest("textarea, select, [contenteditable], input:not([type=range])"));
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    if (event.key !== "[" && event.key !== "]") return;
    event.preventDefault();
    jump(event.key === "]" ? 1 : -1);
  });

  fetch(study.url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
    .then((response) => response.json().then((body) => (response.ok ? body : Promise.reject(new Error(body.detail || String(response.status))))))
    .then((body) => {
      seats = body.seats;
      box.dataset.ready = "true";
      // The replay may have loaded first: ask it to announce its step again.
      root.dispatchEvent(new CustomEvent("replay:goto", { detail: {} }));
      draw();
    })
    .catch((error) => {
      position.textContent = "";
      panel.replaceChildren(node("p", "alert error", "The decisions could not be read: " + error.message));
    });
})();
