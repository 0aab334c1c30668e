/* Replay viewer of a match: steps through the game log (docs/game-log.md).
 *
 * The page embeds {rules, options, seats, events, players} as JSON
 * (#replay-data). The events are folded once into a list of steps, each with
 * a snapshot of the table (casinos with notes and dice per owner, money per
 * seat, the current roll), so moving to any step is just drawing a snapshot.
 * Decisions are folded into the step they cause (a roll's choice shows with
 * its placement); the stocking of a round is one step; every roll, placement,
 * kick and each casino's payout is a step of its own.
 */
(function () {
  "use strict";

  const root = document.getElementById("replay");
  const source = document.getElementById("replay-data");
  if (!root || !source) return;

  const game = JSON.parse(source.textContent);
  const events = game.events || [];
  const seatCount = game.seats;
  const SETUP = new Set(["round_start", "stock", "chip_stock", "tile_setup", "chips_dealt"]);
  const KINDS = ["die", "biggie", "kicker", "neutral"];
  const hasSlot = (game.options || {}).slot_machine === true || events.some((e) => e.casino === 7);
  const casinoIds = hasSlot ? [1, 2, 3, 4, 5, 6, 7] : [1, 2, 3, 4, 5, 6];

  const players = {};
  (game.players || []).forEach((p) => { players[p.seat] = p; });
  const nameOf = (owner) => {
    if (owner === "neutral") return "neutral";
    if (owner === "grey") return "grey";
    return players[owner] ? players[owner].name : "seat " + owner;
  };
  const who = (seat) => "Seat " + seat + " (" + nameOf(seat) + ")";
  const money = (n) => (typeof n === "number" ? "$" + n.toLocaleString("en-US") : String(n));
  const noteOrder = (a, b) => (a === "rainbow") - (b === "rainbow") || b - a;

  // ------------------------------------------------------------------ folding the log into steps

  function freshCasinos() {
    const casinos = {};
    casinoIds.forEach((id) => { casinos[id] = { notes: [], dice: {}, awards: null, cancelled: [], returned: [], returnedTo: "" }; });
    return casinos;
  }

  const state = { round: 0, casinos: freshCasinos(), money: new Array(seatCount).fill(0), roll: null, active: null, result: null };
  const steps = [];
  let decisions = [];
  let setupLines = [];

  function addDice(casino, owner, count) {
    const place = state.casinos[casino];
    if (!place || !count) return;
    const dice = place.dice;
    dice[owner] = (dice[owner] || 0) + count;
    if (dice[owner] <= 0) delete dice[owner];
  }

  function rollText(dice) {
    return KINDS.filter((k) => dice[k] && dice[k].length)
      .map((k) => (k === "die" ? "" : k + " ") + dice[k].join(" "))
      .join(", ");
  }

  function placedText(dice) {
    return KINDS.filter((k) => dice[k])
      .map((k) => dice[k] + " " + (k === "die" ? (dice[k] > 1 ? "dice" : "die") : k + (dice[k] > 1 ? "s" : "")))
      .join(" + ");
  }

  function emit(index, text) {
    // The decision behind a step, as the bot sent it (bot authors debug with these).
    const chosen = decisions.map((d) => "“" + d.action + "”" + (d.forced ? " forced" : "")).join(", ");
    decisions = [];
    const full = chosen ? text + " (decision: " + chosen + ")" : text;
    steps.push({ index: index, type: events[index].type, text: full, state: JSON.parse(JSON.stringify(state)) });
  }

  function seatMoney(owner, amount) {
    if (typeof owner === "number" && owner < seatCount) state.money[owner] += amount;
  }

  function apply(event, index) {
    switch (event.type) {
      case "round_start":
        state.round = event.round;
        state.casinos = freshCasinos();
        state.roll = null;
        state.active = null;
        setupLines = ["Round " + event.round + ": " + who(event.start_player) + " starts; the casinos are stocked."];
        return false;
      case "stock":
        state.casinos[event.casino].notes = event.notes.slice().sort(noteOrder);
        return false;
      case "chip_stock":
        setupLines.push("Chip card " + event.chip + " at casino " + event.casino + ".");
        return false;
      case "tile_setup":
        setupLines.push("Tile " + event.name + " at casino " + event.casino + ".");
        return false;
      case "chips_dealt":
        setupLines.push("Every seat receives " + event.chips + " chips.");
        return false;
      case "decision":
        decisions.push(event);
        return false;
      case "neutral_roll":
        event.dice.forEach((face) => addDice(face, "neutral", 1));
        emit(index, who(event.seat) + " rolls the spare neutral dice: " + event.dice.join(" ") + ".");
        return true;
      case "roll":
        state.roll = { seat: event.seat, dice: event.dice };
        state.active = null;
        emit(index, who(event.seat) + " rolls " + rollText(event.dice) + ".");
        return true;
      case "place": {
        const d = event.dice;
        addDice(event.casino, event.seat, (d.die || 0) + 2 * (d.biggie || 0));
        addDice(event.casino, "neutral", d.neutral || 0);
        state.active = event.casino;
        const where = event.casino === 7 ? "the slot machine" : "casino " + event.casino;
        emit(index, who(event.seat) + " places " + placedText(d) + " showing " + event.face + " on " + where + ".");
        return true;
      }
      case "kick": {
        state.active = event.casino;
        if (event.kicked) {
          addDice(event.casino, event.kicked.owner, event.kicked.die === "biggie" ? -2 : -1);
          emit(index, who(event.seat) + "’s kicker at casino " + event.casino + " knocks out a " + event.kicked.die + " of " + nameOf(event.kicked.owner) + ".");
        } else {
          emit(index, who(event.seat) + "’s kicker at casino " + event.casino + " finds nothing to kick.");
        }
        return true;
      }
      case "play":
        event.cards.forEach((card) => addDice(parseInt(card, 10), event.seat, card.endsWith("D") ? 2 : 1));
        emit(index, who(event.seat) + " plays " + event.cards.join(" ") + ".");
        return true;
      case "move": {
        const size = event.die === "biggie" ? 2 : 1;
        const from = /^casino (\d)$/.exec(event.from);
        const to = /^casino (\d)$/.exec(event.to);
        if (from) addDice(Number(from[1]), event.owner, -size * event.count);
        if (to) addDice(Number(to[1]), event.owner, size * event.count);
        emit(index, event.count + " " + event.die + " of " + nameOf(event.owner) + " moves from " + event.from + " to " + event.to + ".");
        return true;
      }
      case "rainbow": {
        const notes = state.casinos[event.casino].notes;
        const at = notes.indexOf("rainbow");
        if (at >= 0) notes.splice(at, 1);
        if (event.drawn !== null) { notes.push(event.drawn); notes.sort(noteOrder); }
        state.active = event.casino;
        state.roll = null;
        emit(index, "The rainbow card at casino " + event.casino + " is replaced by " + (event.drawn === null ? "nothing" : money(event.drawn)) + ".");
        return true;
      }
      case "payout": {
        const casino = state.casinos[event.casino];
        casino.notes = [];
        casino.awards = event.awards;
        casino.cancelled = event.cancelled;
        casino.returned = event.returned;
        casino.returnedTo = event.returned_to;
        event.awards.forEach((a) => seatMoney(a.owner, a.note));
        state.active = event.casino;
        state.roll = null;
        const paid = event.awards.map((a) => nameOf(a.owner) + " " + money(a.note));
        const tied = event.cancelled.map((group) => group.map(nameOf).join(" & "));
        let text = (event.casino === 7 ? "The slot machine" : "Casino " + event.casino) + " pays: " + (paid.length ? paid.join(", ") : "nobody") + ".";
        if (tied.length) text += " Tied out: " + tied.join("; ") + ".";
        if (event.returned.length) text += " " + event.returned.map(money).join(", ") + (event.returned_to === "box" ? " leave the game." : " go back under the pile.");
        emit(index, text);
        return true;
      }
      case "reward":
        seatMoney(event.seat, event.money);
        emit(index, who(event.seat) + " receives " + money(event.money) + (event.chips ? " and " + event.chips + " chips" : "") + " (" + event.source + ").");
        return true;
      case "bank_payment":
        seatMoney(event.seat, -event.money);
        emit(index, who(event.seat) + " pays the bank " + money(event.money) + " (" + event.source + ").");
        return true;
      case "round_end":
        state.money = event.money.slice();
        state.roll = null;
        state.active = null;
        emit(index, "Round " + event.round + " ends: " + event.money.map((m, s) => nameOf(s) + " " + money(m)).join(", ") + ".");
        return true;
      case "game_end": {
        state.result = event.result;
        event.result.forEach((r) => { state.money[r.seat] = r.money; });
        state.roll = null;
        state.active = null;
        const order = event.result.slice().sort((a, b) => a.rank - b.rank || a.seat - b.seat);
        emit(index, "Game over: " + order.map((r) => "#" + r.rank + " " + nameOf(r.seat) + " " + money(r.money)).join(", ") + ".");
        return true;
      }
      default: {
        const fields = Object.keys(event).filter((k) => k !== "type").map((k) => k + " " + JSON.stringify(event[k]));
        emit(index, event.type.replace(/_/g, " ") + ": " + fields.join(", ") + ".");
        return true;
      }
    }
  }

  events.forEach((event, index) => {
    apply(event, index);
    // A round's stocking is one step, shown once its last setup event is applied.
    const next = events[index + 1];
    if (SETUP.has(event.type) && !(next && SETUP.has(next.type))) emit(index, setupLines.join(" "));
  });
  if (!steps.length) return;

  // ------------------------------------------------------------------ drawing a step

  const el = (id) => document.getElementById(id);
  const position = el("replay-position");
  const caption = el("replay-caption");
  const roundLine = el("replay-round");
  const rollBox = el("replay-roll");
  const casinosBox = el("replay-casinos");
  const seatsBox = el("replay-seats");
  const slider = el("replay-slider");
  const buttons = { first: el("replay-first"), prev: el("replay-prev"), next: el("replay-next"), last: el("replay-last") };
  slider.max = String(steps.length - 1);
  casinosBox.classList.toggle("six", casinoIds.length === 6);

  function node(tag, className, text) {
    const n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined) n.textContent = text;
    return n;
  }
  const ownerClass = (owner) => (typeof owner === "number" ? "seat-" + (owner % 6) : "seat-" + owner);

  function drawRoll(roll) {
    rollBox.replaceChildren();
    if (!roll) return;
    rollBox.appendChild(node("span", "seat-tag " + ownerClass(roll.seat), nameOf(roll.seat)));
    KINDS.forEach((kind) => (roll.dice[kind] || []).forEach((face) => {
      const die = node("span", "die " + kind + " " + ownerClass(roll.seat), String(face));
      die.title = kind;
      die.dataset.kind = kind;
      rollBox.appendChild(die);
    }));
  }

  function drawCasino(id, casino, active) {
    const card = node("div", "casino" + (active ? " active" : ""));
    card.dataset.casino = String(id);
    const title = node("h3");
    title.appendChild(node("span", "face", id === 7 ? "7" : String(id)));
    title.appendChild(document.createTextNode(id === 7 ? "Slot machine" : "Casino " + id));
    card.appendChild(title);
    const notes = node("div", "notes");
    casino.notes.forEach((n) => notes.appendChild(node("span", "note" + (n === "rainbow" ? " rainbow" : ""), n === "rainbow" ? "rainbow" : money(n))));
    card.appendChild(notes);
    Object.keys(casino.dice).forEach((owner) => {
      const count = casino.dice[owner];
      const key = /^\d+$/.test(owner) ? Number(owner) : owner;
      const stack = node("div", "stack " + ownerClass(key));
      stack.dataset.owner = owner;
      stack.title = nameOf(key);
      const pips = node("span", "pips");
      for (let i = 0; i < Math.min(count, 12); i++) pips.appendChild(node("span", "pip" + (owner === "neutral" ? " neutral" : "")));
      stack.appendChild(pips);
      stack.appendChild(node("span", "count", String(count)));
      card.appendChild(stack);
    });
    if (casino.awards) {
      const awards = node("div", "awards");
      casino.awards.forEach((a) => awards.appendChild(node("div", "won", "→ " + nameOf(a.owner) + " " + money(a.note))));
      casino.cancelled.forEach((group) => awards.appendChild(node("div", "cancelled", "tied: " + group.map(nameOf).join(" & "))));
      if (casino.returned.length) {
        const where = casino.returnedTo === "box" ? "out of the game" : "back to the pile";
        awards.appendChild(node("div", "returned", casino.returned.map(money).join(", ") + " " + where));
      }
      card.appendChild(awards);
    }
    return card;
  }

  function drawSeats(snapshot) {
    seatsBox.replaceChildren();
    const head = node("tr");
    ["Seat", "Bot", "Money"].forEach((label, i) => head.appendChild(node("th", i === 2 ? "num" : "", label)));
    const thead = node("thead");
    thead.appendChild(head);
    const body = node("tbody");
    const best = Math.max(...snapshot.money);
    snapshot.money.forEach((amount, seat) => {
      const row = node("tr", amount === best && best > 0 ? "leader" : "");
      row.dataset.seat = String(seat);
      const tag = node("td");
      tag.appendChild(node("span", "seat-tag " + ownerClass(seat), "seat " + seat));
      row.appendChild(tag);
      row.appendChild(node("td", "", nameOf(seat)));
      row.appendChild(node("td", "num money-cell", money(amount)));
      body.appendChild(row);
    });
    seatsBox.appendChild(thead);
    seatsBox.appendChild(body);
  }

  let current = 0;

  function show(target) {
    current = Math.max(0, Math.min(steps.length - 1, target));
    const step = steps[current];
    const snapshot = step.state;
    root.dataset.step = String(current);
    root.dataset.eventIndex = String(step.index);
    root.dataset.eventType = step.type;
    position.textContent = "Step " + (current + 1) + " / " + steps.length;
    roundLine.textContent = snapshot.round ? "Round " + snapshot.round : "";
    caption.textContent = step.text;
    slider.value = String(current);
    drawRoll(snapshot.roll);
    casinosBox.replaceChildren(...casinoIds.map((id) => drawCasino(id, snapshot.casinos[id], snapshot.active === id)));
    drawSeats(snapshot);
    buttons.first.disabled = buttons.prev.disabled = current === 0;
    buttons.next.disabled = buttons.last.disabled = current === steps.length - 1;
    history.replaceState(null, "", "#step-" + (current + 1));
  }

  buttons.first.addEventListener("click", () => show(0));
  buttons.prev.addEventListener("click", () => show(current - 1));
  buttons.next.addEventListener("click", () => show(current + 1));
  buttons.last.addEventListener("click", () => show(steps.length - 1));
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest && event.target.closest("input, textarea, select")) return;
    const moves = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: steps.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    show(moves[event.key]);
  });

  const linked = /^#step-(\d+)$/.exec(window.location.hash);
  show(linked ? Number(linked[1]) - 1 : 0);
})();
