/* Replay viewer of a match: steps through the game log (docs/game-log.md).
 *
 * The page embeds {rules, options, seats, events, players, chip_value} as JSON
 * (#replay-data). The events are folded once into a list of steps, each with
 * a snapshot of the table (casinos with notes, dice or cards per owner, tiles,
 * chip cards, hands, money and chips per seat, the current roll), so moving
 * to any step is just drawing a snapshot. Every rule system's events are
 * understood: classic, boulevard (kickers, Biggies, rainbow cards, neutral
 * dice, slot machine), cardgame (hands, secret choices, plays, discards),
 * royale (tiles, tokens, black, grey and neutral dice, bank payments, chips)
 * and sixdice (Biggies, the one-armed bandit).
 *
 * A decision is shown with the step it causes (a roll's choice with its
 * placement); one that changes nothing on the table ("nice none", a forced
 * "skip") is a step of its own, so none is lost. A round's setup is one step,
 * and so are a few events that read as one (a placement and the tile it
 * activates, a discard and the new hand).
 *
 * Live mode ({live: {url, every_ms, playing}} in the JSON): the game is still
 * being played. The viewer asks url?since=N for the events after the N it
 * has, every every_ms, folds them in and follows the last step if it was
 * showing it; once the status is none of `playing`, it reloads the page (which
 * then shows the stored log). Each answer is also sent to the page as a
 * "replay:live" event (a table's decision panel reads it). Cards shown as "?"
 * are another seat's, hidden from the person watching.
 *
 * A finished game opens at its last step (a #step-N fragment opens that step).
 * Autoplay steps on at the chosen speed (kept in localStorage) and stops at
 * the end. Each step shown is announced on #replay as a "replay:step" event
 * ({step, steps, events: each step's last event index}); a "replay:goto" event
 * ({step}) shows that step, or announces the current one again without a step
 * (replay_study.js, the decision panel, works through these two).
 */
(function () {
  "use strict";

  const root = document.getElementById("replay");
  const source = document.getElementById("replay-data");
  if (!root || !source) return;

  const game = JSON.parse(source.textContent);
  let events = game.events || [];
  const LIVE = game.live || null;
  const options = game.options || {};
  const seatCount = game.seats;
  const rules = game.rules;
  const ROYALE = rules === "royale";
  const CARDS = rules === "cardgame";
  const CHIP_CARDS = options.chips === true; // chip cards of classic and cardgame
  const CHIP_VALUE = game.chip_value || 0; // royale: each chip left is worth this at the end
  const KINDS = ["die", "biggie", "kicker", "neutral"];
  const slotIn = (list) => options.slot_machine === true || list.some((e) => e.casino === 7);
  let casinoIds = slotIn(events) ? [1, 2, 3, 4, 5, 6, 7] : [1, 2, 3, 4, 5, 6];
  const SLOT_NAME = rules === "sixdice" ? "One-armed bandit" : "Slot machine";

  const players = {};
  (game.players || []).forEach((p) => { players[p.seat] = p; });
  // A name two seats share (two owners' "my-first-bot") is told apart by its owner.
  const nameCount = {};
  Object.values(players).forEach((p) => { nameCount[p.name] = (nameCount[p.name] || 0) + 1; });
  const nameOf = (owner) => {
    if (owner === "neutral" || owner === "grey") return owner;
    const p = players[owner];
    if (!p) return "seat " + owner;
    return nameCount[p.name] > 1 && p.owner && !p.person ? p.name + " · " + p.owner : p.name;
  };
  const who = (seat) => "Seat " + seat + " (" + nameOf(seat) + ")";
  const money = (n) => (typeof n === "number" ? "$" + n.toLocaleString("en-US") : String(n));
  const noteOrder = (a, b) => (a === "rainbow") - (b === "rainbow") || b - a;
  const plural = (n, word, many) => n + " " + (n === 1 ? word : many || word + "s");
  const casinoName = (id) => (id === 7 ? "the " + SLOT_NAME.toLowerCase() : "casino " + id);
  const listText = (items) => (items.length > 1 ? items.slice(0, -1).join(", ") + " and " + items[items.length - 1] : items.join(""));
  const sizeOf = (die) => (die === "biggie" ? 2 : 1);
  const seats = () => Array.from({ length: seatCount }, (_, s) => s);

  // ------------------------------------------------------------------ the table's state

  function freshTiles() {
    return {
      jackpot: game.jackpot_start || null, fifty: 0, highFive: null, powerPlay: null,
      closed: null, track: 0, badLuck: [], blackBox: null, handicap: { chip: 0, money: 0, move: 0 },
      bar: seats().map(() => ({ die: 0, biggie: 0 })), side: seats().map(() => ({ die: 0, biggie: 0 })),
      nice: {}, gold: null,
    };
  }

  function freshCasinos(previous) {
    const casinos = {};
    casinoIds.forEach((id) => {
      casinos[id] = {
        notes: [], dice: {}, biggies: {}, faces: [], cards: {}, tile: null,
        // Chip cards stay at their casino from round to round.
        chips: previous ? previous[id].chips : [],
        awards: null, cancelled: [], returned: [], returnedTo: "",
      };
    });
    return casinos;
  }

  const freshState = () => ({
    round: 0, turn: 0, casinos: freshCasinos(null), roll: null, black: null, active: null,
    money: new Array(seatCount).fill(0), chips: new Array(seatCount).fill(0),
    held: seats().map(() => ({})), hands: seats().map(() => []), chosen: seats().map(() => null),
    finished: seats().map(() => false), tiles: freshTiles(), result: null,
  });
  let state = freshState();
  let setupOpen = false; // between a round_start and the round's first turn

  function addDice(casino, owner, count, biggies) {
    const place = state.casinos[casino];
    if (!place || !count) return;
    place.dice[owner] = (place.dice[owner] || 0) + count;
    if (place.dice[owner] <= 0) delete place.dice[owner];
    if (biggies) {
      place.biggies[owner] = (place.biggies[owner] || 0) + biggies;
      if (place.biggies[owner] <= 0) delete place.biggies[owner];
    }
  }

  function seatMoney(owner, amount) {
    if (typeof owner === "number" && owner < seatCount) state.money[owner] += amount;
  }

  const HIDDEN = "?"; // a card of another seat, hidden from the person watching
  const allHidden = (cards) => cards.length > 0 && cards.every((c) => c === HIDDEN);

  function removeCards(list, cards) {
    cards.forEach((card) => {
      let at = list.indexOf(card);
      if (at < 0) at = list.indexOf(HIDDEN); // it was in a hidden hand: now it is shown
      if (at >= 0) list.splice(at, 1);
    });
  }

  function rollText(dice) {
    return KINDS.filter((k) => dice[k] && dice[k].length)
      .map((k) => (k === "die" ? "" : k + " ") + dice[k].join(" "))
      .join(", ");
  }

  function placedText(dice) {
    return KINDS.filter((k) => dice[k])
      .map((k) => plural(dice[k], k === "die" ? "die" : k === "neutral" ? "neutral die" : k, k === "die" ? "dice" : k === "neutral" ? "neutral dice" : undefined))
      .join(" + ");
  }

  // Places named by royale's move events ("casino 3", "nice 4", "handicap chip", ...).
  function placeText(where) {
    const [kind, arg] = where.split(" ");
    const names = {
      hand: "the hand", bar: "the Knockout? bar", gold: "My Choice's golden space",
      tile: "the tile", black: "the black dice", side: "the Double Down side bet",
      casino: "casino " + arg, nice: "Nice Dice space " + arg, handicap: "Handicap's " + arg + " space",
    };
    return names[kind] || where;
  }

  // Royale: the die-holding spaces outside the casinos that moves fill and empty.
  function moveOut(event, size) {
    const [kind, arg] = event.from.split(" ");
    const tiles = state.tiles;
    if (kind === "casino") addDice(Number(arg), event.owner, -size * event.count, event.die === "biggie" ? -event.count : 0);
    else if (kind === "bar" || kind === "side") tiles[kind === "bar" ? "bar" : "side"][event.owner][event.die] -= event.count;
    else if (kind === "nice") delete tiles.nice[arg];
  }

  function moveIn(event, size) {
    const [kind, arg] = event.to.split(" ");
    const tiles = state.tiles;
    // A black die Prime Time adds becomes the seat's own regular die.
    const owner = event.owner;
    if (kind === "casino") addDice(Number(arg), owner, size * event.count, event.die === "biggie" ? event.count : 0);
    else if (kind === "bar" || kind === "side") tiles[kind === "bar" ? "bar" : "side"][owner][event.die] += event.count;
    else if (kind === "nice") tiles.nice[arg] = { owner: owner, die: event.die };
    else if (kind === "gold") tiles.gold = { owner: owner, die: event.die };
    else if (kind === "handicap") tiles.handicap[arg] += event.count;
  }

  // Whether an event continues a run of its kind (set-up lists read as one sentence).
  const runOn = (index) => index > 0 && events[index - 1].type === events[index].type;

  const tileName = (code) => {
    const found = casinoIds.map((id) => state.casinos[id].tile).find((t) => t && t.code === code);
    return found ? found.name : code;
  };

  // ------------------------------------------------------------------ one event: state and caption

  function apply(e, index) {
    switch (e.type) {
      case "round_start":
        state.round = e.round;
        state.turn = 0;
        state.casinos = freshCasinos(state.casinos);
        state.tiles = freshTiles();
        state.roll = state.black = state.active = null;
        state.finished = seats().map(() => false);
        state.hands = seats().map(() => []);
        return "Round " + e.round + ": " + who(e.start_player) + " starts.";
      case "stock":
        state.casinos[e.casino].notes = e.notes.slice().sort(noteOrder);
        return e.casino === 1 ? "The casinos are stocked." : "";
      case "chip_stock":
        state.casinos[e.casino].chips.push(e.chip);
        return (runOn(index) ? ", " : "Chip cards dealt: ") + "casino " + e.casino + " " + e.chip + ".";
      case "tile_setup":
        state.casinos[e.casino].tile = { code: e.tile, name: e.name };
        return (runOn(index) ? ", " : "Tiles: ") + e.name + " (" + e.tile + ") at casino " + e.casino + ".";
      case "chips_dealt":
        state.chips = state.chips.map((c) => c + e.chips);
        return "Every seat receives " + plural(e.chips, "chip") + ".";
      case "draw":
        state.hands[e.seat] = e.cards.slice();
        if (setupOpen) return runOn(index) ? "" : "Every seat draws a hand.";
        if (allHidden(e.cards)) return who(e.seat) + " draws " + plural(e.cards.length, "card") + ".";
        return who(e.seat) + " draws " + e.cards.join(" ") + ".";
      case "neutral_roll":
        e.dice.forEach((face) => addDice(face, "neutral", 1));
        return who(e.seat) + " rolls the " + plural(e.dice.length, "neutral die", "neutral dice") + " onto the casinos: " + e.dice.join(" ") + ".";
      case "roll":
        state.roll = { seat: e.seat, dice: e.dice, face: null };
        state.black = null;
        state.active = null;
        return who(e.seat) + " rolls " + rollText(e.dice) + ".";
      case "place": {
        const d = e.dice;
        addDice(e.casino, e.seat, (d.die || 0) + 2 * (d.biggie || 0), d.biggie || 0);
        addDice(e.casino, "neutral", d.neutral || 0);
        if (e.casino === 7) {
          // The slot machine ranks ties by the faces: keep every die placed there.
          [["die", e.seat, false], ["biggie", e.seat, true], ["neutral", "neutral", false]].forEach(([kind, owner, big]) => {
            for (let i = 0; i < (d[kind] || 0); i++) state.casinos[7].faces.push({ owner: owner, face: e.face, biggie: big });
          });
        }
        state.active = e.casino;
        if (state.roll && state.roll.seat === e.seat) state.roll.face = e.face;
        return who(e.seat) + " places " + placedText(d) + " showing " + e.face + " on " + casinoName(e.casino) + ".";
      }
      case "kick": {
        state.active = e.casino;
        if (!e.kicked) return who(e.seat) + "’s kicker on " + casinoName(e.casino) + " finds nothing to kick.";
        const big = e.kicked.die === "biggie";
        addDice(e.casino, e.kicked.owner, -sizeOf(e.kicked.die), big ? -1 : 0);
        if (e.casino === 7) {
          // The engine removes the most recently placed die of that owner and kind.
          const faces = state.casinos[7].faces;
          for (let i = faces.length - 1; i >= 0; i--) {
            if (faces[i].owner === e.kicked.owner && faces[i].biggie === big) { faces.splice(i, 1); break; }
          }
        }
        const back = e.kicked.owner === "neutral" ? "; it is out for the round" : "; it goes back to its owner";
        return who(e.seat) + "’s kicker on " + casinoName(e.casino) + " knocks out a " + e.kicked.die + " of " + nameOf(e.kicked.owner) + back + ".";
      }
      case "play": {
        removeCards(state.hands[e.seat], e.cards);
        state.chosen[e.seat] = null;
        e.cards.forEach((card) => {
          const casino = state.casinos[parseInt(card, 10)];
          (casino.cards[e.seat] = casino.cards[e.seat] || []).push(card);
          addDice(parseInt(card, 10), e.seat, card.endsWith("D") ? 2 : 1);
        });
        state.active = parseInt(e.cards[0], 10);
        const where = [...new Set(e.cards.map((c) => parseInt(c, 10)))].map((c) => "casino " + c);
        return who(e.seat) + " plays " + e.cards.join(" ") + " to " + listText(where) + ".";
      }
      case "chip_take": {
        state.active = e.casino;
        if (e.chip === null) return who(e.seat) + " takes no chip card at casino " + e.casino + ".";
        removeCards(state.casinos[e.casino].chips, [e.chip]);
        state.held[e.seat][e.chip] = (state.held[e.seat][e.chip] || 0) + 1;
        return who(e.seat) + " takes the " + e.chip + " chip card at casino " + e.casino + ".";
      }
      case "discard":
        removeCards(state.hands[e.seat], e.cards);
        if (allHidden(e.cards)) return who(e.seat) + " discards " + plural(e.cards.length, "card") + ".";
        return who(e.seat) + " discards " + e.cards.join(" ") + ".";
      case "finish":
        state.finished[e.seat] = true;
        state.hands[e.seat] = [];
        return who(e.seat) + " is finished for the round with " + plural(e.cards_placed, "card") + " at the casinos.";
      case "chip_pass":
        state.chips[e.seat] = e.chips;
        return who(e.seat) + " pays a chip to place nothing (" + plural(e.chips, "chip") + " left).";
      case "activate":
        state.active = e.casino;
        return who(e.seat) + " activates " + tileName(e.tile) + " (" + e.tile + ") at casino " + e.casino + ".";
      case "black_dice":
        state.black = e.dice.slice();
        return who(e.seat) + " rolls the black dice for " + tileName(e.tile) + ": " + e.dice.join(" ") + ".";
      case "jackpot_roll":
        state.tiles.jackpot = e.pot;
        return e.hit
          ? "Jackpot: " + e.dice.join(" ") + " hits; the pot is paid and starts again at " + money(e.pot) + "."
          : "Jackpot: " + e.dice.join(" ") + " misses; the pot grows to " + money(e.pot) + ".";
      case "fifty_fifty": {
        state.tiles.fifty = e.step;
        const sum = e.dice.reduce((a, b) => a + b, 0);
        const rolled = e.dice.join(" ") + " (sum " + sum + ")";
        if (e.outcome === "stop") return "Fifty Fifty: " + who(e.seat) + " stops at step " + e.step + ".";
        if (e.outcome === "rolled") return "Fifty Fifty: first roll " + rolled + "; the counter moves to step " + e.step + ".";
        return "Fifty Fifty: " + who(e.seat) + " calls " + e.call + " and rolls " + rolled + ": " +
          (e.outcome === "won" ? "right; the counter moves to step " + e.step + "." : "wrong, nothing won.");
      }
      case "token": {
        const which = e.tile === "C1" ? "highFive" : "powerPlay";
        state.tiles[which] = e.holder;
        const name = tileName(e.tile);
        return e.holder === null
          ? "The " + name + " token goes back to its tile at casino " + e.casino + "."
          : who(e.holder) + " takes the " + name + " token.";
      }
      case "no_entry":
        state.tiles.track = e.track;
        if (e.closed === null) return "No Entry!: " + who(e.seat) + " leaves the marker where it is.";
        state.tiles.closed = e.closed;
        return "No Entry!: " + who(e.seat) + " closes casino " + e.closed + "; the reward track moves to space " + e.track + ".";
      case "move": {
        const size = sizeOf(e.die);
        moveOut(e, size);
        moveIn(e, size);
        if (setupOpen) return (runOn(index) ? ", " : "Handicap puts grey dice out: ") + e.count + " on " + placeText(e.to) + ".";
        const what = e.die === "grey" || e.die === "black"
          ? plural(e.count, e.die + " die", e.die + " dice")
          : plural(e.count, e.die === "die" ? "die" : "biggie", e.die === "die" ? "dice" : "biggies");
        const route = " from " + placeText(e.from) + " to " + placeText(e.to) + ".";
        if (e.die === "black") return who(e.owner) + " adds a black die to " + placeText(e.to) + " as its own die.";
        if (e.from.startsWith("nice ")) return who(e.owner) + "’s " + e.die + " on " + placeText(e.from) + " is bumped back to " + placeText(e.to) + ".";
        if (typeof e.owner === "number") return who(e.owner) + " moves " + what + route;
        return what.charAt(0).toUpperCase() + what.slice(1) + (e.count === 1 ? " moves" : " move") + route;
      }
      case "reward": {
        seatMoney(e.seat, e.money);
        state.chips[e.seat] += e.chips;
        const gains = [];
        if (e.money) gains.push(money(e.money));
        if (e.chips) gains.push(plural(e.chips, "chip"));
        return who(e.seat) + " receives " + (gains.length ? listText(gains) : "nothing") + " (" + e.source + ").";
      }
      case "bank_payment": {
        seatMoney(e.seat, -e.money);
        state.chips[e.seat] -= e.chips;
        const paid = [];
        if (e.money > 0) paid.push(money(e.money));
        if (e.chips) paid.push(plural(e.chips, "chip"));
        let text = who(e.seat) + " owes the bank " + money(e.due) + " (" + e.source + ") and pays " + (paid.length ? listText(paid) : "nothing");
        if (e.money < 0) text += ", getting " + money(-e.money) + " change";
        if (e.money + e.chips * CHIP_VALUE < e.due) text += ": all it has";
        return text + ".";
      }
      case "lucky_punch":
        return "Lucky Punch: " + who(e.seat) + " hides " + plural(e.tokens, "token") + "; " + who(e.guesser) +
          " guesses " + e.guess + (e.won ? ": wrong, so the hider is paid." : ": right, nothing paid.");
      case "bad_luck":
        state.tiles.badLuck = e.seats.slice();
        state.active = e.casino;
        return "Bad Luck at casino " + e.casino + " (dice " + e.counts.join(", ") + "): " +
          (e.seats.length ? listText(e.seats.map(who)) + " will pay the bank at round end." : "nobody pays.");
      case "black_box": {
        const piles = e.piles.map((pile) => pile.map(money).join(" + "));
        state.tiles.blackBox = { piles: piles, pick: e.pick, winner: e.winner };
        state.active = e.casino;
        return "Black Box at casino " + e.casino + ": " + who(e.splitter) + " splits the tokens into " + piles.join(" and ") +
          "; " + who(e.winner) + " takes pile " + e.pick + ".";
      }
      case "side_bet": {
        const counts = Object.keys(e.counts).map((o) => nameOf(Number(o)) + " " + e.counts[o]);
        const paid = e.awards.map((a) => nameOf(a.owner) + " " + money(a.money));
        const tied = e.cancelled.map((group) => group.map(nameOf).join(" & "));
        state.active = e.casino;
        return "Double Down side bet at casino " + e.casino + ": " + (counts.length ? "dice " + counts.join(", ") : "no dice") +
          "; pays " + (paid.length ? paid.join(", ") : "nobody") + "." + (tied.length ? " Tied out: " + tied.join("; ") + "." : "");
      }
      case "rainbow": {
        const notes = state.casinos[e.casino].notes;
        const at = notes.indexOf("rainbow");
        if (at >= 0) notes.splice(at, 1);
        if (e.drawn !== null) { notes.push(e.drawn); notes.sort(noteOrder); }
        state.active = e.casino;
        state.roll = state.black = null;
        const drawn = e.drawn === null ? "nothing (the pile is empty)" : e.drawn === "rainbow" ? "another rainbow card" : money(e.drawn);
        return "The rainbow card at " + casinoName(e.casino) + " is replaced by " + drawn + ".";
      }
      case "payout": {
        const casino = state.casinos[e.casino];
        casino.notes = [];
        casino.awards = e.awards;
        casino.cancelled = e.cancelled;
        casino.returned = e.returned;
        casino.returnedTo = e.returned_to;
        e.awards.forEach((a) => seatMoney(a.owner, a.note));
        state.active = e.casino;
        state.roll = state.black = null;
        const paid = e.awards.map((a) => nameOf(a.owner) + " " + money(a.note));
        const tied = e.cancelled.map((group) => group.map(nameOf).join(" & "));
        const title = casinoName(e.casino);
        let text = title.charAt(0).toUpperCase() + title.slice(1) + " pays: " + (paid.length ? paid.join(", ") : "nobody") + ".";
        if (tied.length) text += " Tied out: " + tied.join("; ") + ".";
        if (e.returned.length) {
          const one = e.returned.length === 1;
          text += " " + e.returned.map(money).join(", ") + (e.returned_to === "box" ? (one ? " leaves the game." : " leave the game.") : one ? " goes under the pile." : " go under the pile.");
        }
        return text;
      }
      case "round_end": {
        state.roll = state.black = state.active = null;
        let text = "Round " + e.round + " ends: " + e.money.map((m, s) => nameOf(s) + " " + money(m)).join(", ") + ".";
        if (e.money.some((m, s) => m !== state.money[s])) text += " (The replay's totals differ from the log's!)";
        return text;
      }
      case "chip_score": {
        seatMoney(e.seat, e.money);
        const cards = Object.keys(e.chips).map((c) => c + " " + e.chips[c]);
        return who(e.seat) + "’s chip cards score " + money(e.money) + (cards.length ? " (" + cards.join(", ") + ")." : " (none).");
      }
      case "game_end": {
        state.result = e.result;
        state.roll = state.black = state.active = null;
        // Royale: each chip left is worth CHIP_VALUE in the final money.
        if (ROYALE) seats().forEach((s) => seatMoney(s, state.chips[s] * CHIP_VALUE));
        const order = e.result.slice().sort((a, b) => a.rank - b.rank || a.seat - b.seat);
        let text = "Game over: " + order.map((r) => "#" + r.rank + " " + nameOf(r.seat) + " " + money(r.money)).join(", ") + ".";
        if (ROYALE) text += " Chips count " + money(CHIP_VALUE) + " each.";
        if (e.result.some((r) => r.money !== state.money[r.seat])) text += " (The replay's totals differ from the result!)";
        return text;
      }
      default: {
        // A log newer than this viewer: show the event plainly rather than drop it.
        root.dataset.unknownEvents = "true";
        const fields = Object.keys(e).filter((k) => k !== "type").map((k) => k + " " + JSON.stringify(e[k]));
        return e.type.replace(/_/g, " ") + ": " + fields.join(", ") + ".";
      }
    }
  }

  // ------------------------------------------------------------------ folding events into steps

  // A decision that changes nothing on the table, in words.
  const SILENT = {
    skip: "cannot place: no rolled face has an open casino",
    "nice none": "puts no die on Nice Dice",
    "bet 0": "moves no dice to the side bet",
    "add none": "adds no black die",
    "take none": "takes no grey die",
  };

  // Whether a decision is the cause of this event (shown with it) or stands alone.
  function takes(event, decision) {
    const seat = decision.seat;
    switch (event.type) {
      case "roll": return decision.action === "roll" && seat === event.seat; // Power Play: roll, not turn
      case "move": return true; // every move follows from the decision just made
      case "black_dice": return seat === event.seat && /^(higher|lower)$/.test(decision.action);
      case "lucky_punch": return seat === event.seat || seat === event.guesser;
      case "black_box": return seat === event.winner || seat === event.splitter;
      case "place": case "kick": case "play": case "chip_take": case "no_entry": case "chip_pass":
      case "fifty_fifty": case "reward": case "activate":
        return seat === event.seat;
      default: return false;
    }
  }

  function quoted(decisions) {
    return decisions.map((d) => "“" + d.action + "”" + (d.forced ? " forced" : "")).join(", ");
  }

  const isSetup = (e) =>
    ["round_start", "stock", "chip_stock", "tile_setup", "chips_dealt"].includes(e.type) ||
    (setupOpen && (e.type === "draw" || (e.type === "move" && e.from === "tile" && e.owner === "grey")));

  // Events read together with the one after them: one step.
  function joinsNext(event, next) {
    if (!next) return false;
    if (isSetup(event)) return isSetup(next);
    switch (event.type) {
      case "place": case "activate": case "token":
        return (next.type === "activate" && next.seat === (event.seat ?? next.seat)) || next.type === "token";
      case "black_dice": return (next.type === "jackpot_roll" || next.type === "fifty_fifty") && next.seat === event.seat;
      case "discard": return (next.type === "draw" || next.type === "finish") && next.seat === event.seat;
      case "chip_score": return next.type === "chip_score";
      default: return false;
    }
  }

  // The steps of the events so far (all of them, from a fresh table: a live game's new
  // events may finish a step its last ones began).
  function build() {
    casinoIds = slotIn(events) ? [1, 2, 3, 4, 5, 6, 7] : [1, 2, 3, 4, 5, 6];
    state = freshState();
    setupOpen = false;
    const built = [];
    let pending = [];
    let parts = [];
    let turnOpen = false; // card game: a turn's plays have begun
    let firstType = null;

    function emit(index, type, text) {
      built.push({ index: index, type: type, text: text, state: JSON.parse(JSON.stringify(state)) });
    }

    events.forEach((event, index) => {
      if (event.type === "decision") { pending.push(event); return; }
      if (!isSetup(event)) setupOpen = false;
      if (event.type === "round_start") setupOpen = true;
      if (CARDS && event.type === "play" && !turnOpen) {
        state.turn += 1;
        turnOpen = true;
      }
      if (["round_start", "discard", "draw", "finish"].includes(event.type)) turnOpen = false;
      // Card game: several secret choices made at once are revealed before the plays.
      const choices = pending.filter((d) => d.action.startsWith("play "));
      if (CARDS && event.type === "play" && choices.length > 1) {
        choices.forEach((d) => { state.chosen[d.seat] = d.action.split(" ").slice(1); });
        emit(index - 1, "decision", "Turn " + state.turn + ": the secret choices, revealed: " +
          choices.map((d) => who(d.seat) + " “" + d.action + "”").join(", ") + ".");
        pending = pending.filter((d) => !choices.includes(d));
      }
      const taken = pending.filter((d) => takes(event, d));
      const silent = pending.filter((d) => !taken.includes(d));
      pending = [];
      if (silent.length) {
        const said = silent.map((d) => who(d.seat) + " " + (SILENT[d.action] || "decides") + " (decision: " + quoted([d]) + ").");
        emit(events.indexOf(silent[silent.length - 1]), "decision", said.join(" "));
      }
      let text = apply(event, index);
      if (taken.length) text = text.replace(/\.$/, "") + " (decision: " + quoted(taken) + ").";
      // A run's next item (", casino 2 blue.") continues the sentence before it.
      if (text.startsWith(", ") && parts.length) parts.push(parts.pop().replace(/\.$/, "") + text);
      else if (text) parts.push(text);
      if (firstType === null) firstType = event.type;
      if (joinsNext(event, events[index + 1])) return;
      emit(index, firstType, parts.join(" "));
      parts = [];
      firstType = null;
    });
    // A game still played may end with a step its next events will finish: show it so far.
    if (parts.length) emit(events.length - 1, firstType, parts.join(" "));
    // A valid log ends with game_end; a cut one may end with decisions: show them, not drop them.
    const ends = LIVE ? "Decisions so far: " : "Decisions the log ends with: ";
    if (pending.length) emit(events.length - 1, "decision", ends + quoted(pending) + ".");
    return built;
  }

  let steps = build();
  if (!steps.length && !LIVE) return;

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
  root.classList.add("rules-" + rules);
  root.classList.toggle("live", Boolean(LIVE));

  function node(tag, className, text) {
    const n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined) n.textContent = text;
    return n;
  }
  const ownerClass = (owner) => (typeof owner === "number" ? "seat-" + (owner % 6) : "seat-" + owner);
  const ownerKey = (owner) => (/^\d+$/.test(owner) ? Number(owner) : owner);

  function die(kind, owner, face) {
    const d = node("span", "die " + kind + " " + ownerClass(owner), String(face));
    d.title = kind;
    d.dataset.kind = kind;
    return d;
  }

  function card(text, extra) {
    if (text === HIDDEN) {
      const back = node("span", "hand-card hidden-card" + (extra ? " " + extra : ""), HIDDEN);
      back.title = "a card you cannot see";
      return back;
    }
    const c = node("span", "hand-card" + (text.endsWith("D") ? " double" : "") + (extra ? " " + extra : ""), text);
    c.title = text.endsWith("D") ? "double card: two dice showing " + parseInt(text, 10) : "card: one die showing " + text;
    return c;
  }

  function drawRoll(snapshot) {
    rollBox.replaceChildren();
    const roll = snapshot.roll;
    if (roll) {
      rollBox.appendChild(node("span", "seat-tag " + ownerClass(roll.seat), nameOf(roll.seat)));
      KINDS.forEach((kind) => (roll.dice[kind] || []).forEach((face) => {
        const shown = die(kind, roll.seat, face);
        if (face === roll.face) shown.classList.add("placed"); // the dice the seat placed
        rollBox.appendChild(shown);
      }));
    }
    if (snapshot.black) {
      rollBox.appendChild(node("span", "roll-label", "black dice"));
      snapshot.black.forEach((face) => rollBox.appendChild(die("black", "black", face)));
    }
  }

  // Royale: what a tile holds right now, in a few words (tokens as their own elements).
  function drawTile(tile, snapshot) {
    const box = node("div", "tile");
    box.dataset.tile = tile.code;
    box.appendChild(node("span", "tile-name", tile.name));
    box.appendChild(node("span", "tile-code", tile.code));
    const t = snapshot.tiles;
    const facts = [];
    const token = (holder) => {
      const mark = node("span", "token " + (holder === null ? "on-tile" : ownerClass(holder)), holder === null ? "token on the tile" : "token: " + nameOf(holder));
      mark.dataset.holder = holder === null ? "tile" : String(holder);
      box.appendChild(mark);
    };
    const dice = (rows) => seats().filter((s) => rows[s].die || rows[s].biggie)
      .map((s) => nameOf(s) + " " + [rows[s].die ? plural(rows[s].die, "die", "dice") : "", rows[s].biggie ? plural(rows[s].biggie, "biggie") : ""].filter(Boolean).join(" + "));
    switch (tile.code) {
      case "A2": if (t.jackpot !== null) facts.push("pot " + money(t.jackpot)); break;
      case "B2": if (t.fifty) facts.push("counter at step " + t.fifty); break;
      case "C1": token(t.highFive); break;
      case "D2": token(t.powerPlay); break;
      case "C2": if (t.badLuck.length) facts.push("pays at round end: " + t.badLuck.map(nameOf).join(", ")); break;
      case "E1": facts.push(t.closed ? "casino " + t.closed + " closed" : "no casino closed"); facts.push("track space " + t.track); break;
      case "E2": { const bar = dice(t.bar); if (bar.length) facts.push("bar: " + bar.join(", ")); break; }
      case "F2": { const h = t.handicap; const used = Object.keys(h).filter((k) => h[k]).map((k) => k + " " + h[k]); if (used.length) facts.push("spaces taken: " + used.join(", ")); break; }
      case "G1": if (t.blackBox) facts.push("piles " + t.blackBox.piles.join(" / ") + "; " + nameOf(t.blackBox.winner) + " took pile " + t.blackBox.pick); break;
      case "G2": { const side = dice(t.side); if (side.length) facts.push("side bet: " + side.join(", ")); break; }
      case "H1": { const nice = Object.keys(t.nice).map((f) => f + ": " + nameOf(t.nice[f].owner) + (t.nice[f].die === "biggie" ? " biggie" : "")); if (nice.length) facts.push("spaces " + nice.join(", ")); break; }
      case "H2": if (t.gold) facts.push("golden space: " + nameOf(t.gold.owner) + (t.gold.die === "biggie" ? " biggie" : "")); break;
      default: break;
    }
    facts.forEach((fact) => box.appendChild(node("span", "tile-fact", fact)));
    return box;
  }

  function drawStack(casino, owner, id) {
    const key = ownerKey(owner);
    const count = casino.dice[owner];
    const stack = node("div", "stack " + ownerClass(key));
    stack.dataset.owner = owner;
    stack.title = nameOf(key);
    const body = node("span", "pips");
    if (CARDS) {
      body.className = "cards";
      (casino.cards[owner] || []).forEach((c) => body.appendChild(card(c, "mini")));
    } else if (id === 7) {
      // The slot machine's ties are broken by the faces: show each die.
      body.className = "faces";
      casino.faces.filter((f) => String(f.owner) === owner).forEach((f) => body.appendChild(die(f.biggie ? "biggie" : f.owner === "neutral" ? "neutral" : "die", f.owner, f.face)));
    } else {
      const biggies = casino.biggies[owner] || 0;
      for (let i = 0; i < biggies; i++) body.appendChild(node("span", "pip biggie"));
      for (let i = 0; i < Math.min(count - 2 * biggies, 12); i++) body.appendChild(node("span", "pip" + (owner === "neutral" || owner === "grey" ? " " + owner : "")));
    }
    stack.appendChild(body);
    stack.appendChild(node("span", "count", String(count)));
    return stack;
  }

  function drawCasino(id, casino, snapshot) {
    const closed = snapshot.tiles.closed === id;
    const box = node("div", "casino" + (snapshot.active === id ? " active" : "") + (closed ? " closed" : "") + (id === 7 ? " slot" : ""));
    box.dataset.casino = String(id);
    const title = node("h3");
    title.appendChild(node("span", "face", String(id)));
    title.appendChild(node("span", "casino-name", id === 7 ? SLOT_NAME : "Casino " + id));
    if (closed) title.appendChild(node("span", "closed-mark", "closed"));
    box.appendChild(title);
    if (casino.tile) box.appendChild(drawTile(casino.tile, snapshot));
    const notes = node("div", "notes");
    casino.notes.forEach((n) => notes.appendChild(node("span", "note" + (n === "rainbow" ? " rainbow" : ""), n === "rainbow" ? "rainbow" : money(n))));
    box.appendChild(notes);
    if (casino.chips.length) {
      const chips = node("div", "chipcards");
      casino.chips.forEach((c) => chips.appendChild(node("span", "chipcard chip-" + c, c)));
      box.appendChild(chips);
    }
    Object.keys(casino.dice).forEach((owner) => box.appendChild(drawStack(casino, owner, id)));
    if (casino.awards) {
      const awards = node("div", "awards");
      casino.awards.forEach((a) => awards.appendChild(node("div", "won", "→ " + nameOf(a.owner) + " " + money(a.note))));
      casino.cancelled.forEach((group) => awards.appendChild(node("div", "cancelled", "tied: " + group.map(nameOf).join(" & "))));
      if (casino.returned.length) {
        const where = casino.returnedTo === "box" ? "out of the game" : "under the pile";
        awards.appendChild(node("div", "returned", casino.returned.map(money).join(", ") + " " + where));
      }
      box.appendChild(awards);
    }
    return box;
  }

  // A cell of the seats' table, labelled for a phone, where the table reflows to a block per seat.
  function cell(label, className, text) {
    const td = node("td", className, text);
    td.dataset.label = label;
    return td;
  }

  // A seat's bot with its owner ("my-first-bot · alice", the house's marked): two owners'
  // bots may share a name. A person at a table is just "You".
  function botCell(seat) {
    const p = players[seat];
    const td = cell("Bot", "bot-cell", p ? p.name : "seat " + seat);
    if (p && p.owner && !p.person) {
      const by = node("span", "bot-by", " · ");
      by.appendChild(p.house ? node("span", "badge house", p.owner) : node("span", "owner", p.owner));
      td.appendChild(by);
    }
    return td;
  }

  function drawSeats(snapshot) {
    seatsBox.replaceChildren();
    const columns = ["Seat", "Bot"];
    if (CARDS) columns.push("Hand");
    if (CHIP_CARDS) columns.push("Chip cards");
    if (ROYALE) columns.push("Chips", "Tokens");
    columns.push("Money");
    if (snapshot.result) columns.push("Rank");
    const head = node("tr");
    columns.forEach((label) => head.appendChild(node("th", ["Money", "Chips", "Rank"].includes(label) ? "num" : "", label)));
    const thead = node("thead");
    thead.appendChild(head);
    const body = node("tbody");
    const best = Math.max(...snapshot.money);
    const ranks = {};
    (snapshot.result || []).forEach((r) => { ranks[r.seat] = r.rank; });
    snapshot.money.forEach((amount, seat) => {
      const row = node("tr", amount === best && best > 0 ? "leader" : "");
      row.dataset.seat = String(seat);
      const tag = cell("Seat", "");
      tag.appendChild(node("span", "seat-tag " + ownerClass(seat), "seat " + seat));
      row.appendChild(tag);
      row.appendChild(botCell(seat));
      if (CARDS) {
        const hand = cell("Hand", "hand wide " + ownerClass(seat));
        const chosen = snapshot.chosen[seat] ? snapshot.chosen[seat].slice() : [];
        snapshot.hands[seat].forEach((c) => {
          const at = chosen.indexOf(c);
          if (at >= 0) chosen.splice(at, 1);
          hand.appendChild(card(c, at >= 0 ? "chosen" : ""));
        });
        if (snapshot.finished[seat]) hand.appendChild(node("span", "badge finished", "finished"));
        row.appendChild(hand);
      }
      if (CHIP_CARDS) {
        const held = cell("Chip cards", "chipcards wide");
        Object.keys(snapshot.held[seat]).sort().forEach((c) => held.appendChild(node("span", "chipcard chip-" + c, c + " ×" + snapshot.held[seat][c])));
        row.appendChild(held);
      }
      if (ROYALE) {
        const chips = snapshot.chips[seat];
        row.appendChild(cell("Chips", "num chips-cell", snapshot.result ? chips + " = " + money(chips * CHIP_VALUE) : String(chips)));
        const tokens = cell("Tokens", "tokens");
        if (snapshot.tiles.highFive === seat) tokens.appendChild(node("span", "token " + ownerClass(seat), "High Five"));
        if (snapshot.tiles.powerPlay === seat) tokens.appendChild(node("span", "token " + ownerClass(seat), "Power Play"));
        row.appendChild(tokens);
      }
      row.appendChild(cell("Money", "num money-cell", money(amount)));
      if (snapshot.result) row.appendChild(cell("Rank", "num rank-cell", "#" + ranks[seat]));
      body.appendChild(row);
    });
    seatsBox.appendChild(thead);
    seatsBox.appendChild(body);
  }

  let current = 0;

  function show(target) {
    slider.max = String(Math.max(0, steps.length - 1));
    casinosBox.classList.toggle("six", casinoIds.length === 6);
    if (!steps.length) {
      // A game being played, before its first event reached us.
      position.textContent = "Step 0 / 0";
      caption.textContent = "Waiting for the first move…";
      Object.values(buttons).forEach((button) => { button.disabled = true; });
      return;
    }
    current = Math.max(0, Math.min(steps.length - 1, target));
    const step = steps[current];
    const snapshot = step.state;
    root.dataset.step = String(current);
    root.dataset.eventIndex = String(step.index);
    root.dataset.eventType = step.type;
    position.textContent = "Step " + (current + 1) + " / " + steps.length;
    roundLine.textContent = snapshot.round ? "Round " + snapshot.round + (CARDS && snapshot.turn ? " · turn " + snapshot.turn : "") : "";
    caption.textContent = step.text;
    slider.value = String(current);
    drawRoll(snapshot);
    casinosBox.replaceChildren(...casinoIds.map((id) => drawCasino(id, snapshot.casinos[id], snapshot)));
    drawSeats(snapshot);
    buttons.first.disabled = buttons.prev.disabled = current === 0;
    buttons.next.disabled = buttons.last.disabled = current === steps.length - 1;
    if (!LIVE) history.replaceState(null, "", "#step-" + (current + 1));
    root.dispatchEvent(new CustomEvent("replay:step", {
      detail: { step: current, steps: steps.length, events: steps.map((s) => s.index) },
    }));
  }

  // ------------------------------------------------------------------ autoplay

  const SPEEDS = [0.5, 1, 2, 4];
  const STEP_MS = 1000; // a step a second at 1x
  const SPEED_KEY = "arena.replay.speed";
  const playButton = el("replay-play");
  const speedSelect = el("replay-speed");
  let timer = null; // set while playing

  function savedSpeed() {
    let saved = NaN;
    try { saved = Number(window.localStorage.getItem(SPEED_KEY)); } catch (e) { /* storage refused */ }
    return SPEEDS.includes(saved) ? saved : 1;
  }
  let speed = savedSpeed();

  function setSpeed(value) {
    speed = value;
    speedSelect.value = String(value);
    root.dataset.speed = String(value);
    try { window.localStorage.setItem(SPEED_KEY, String(value)); } catch (e) { /* storage refused */ }
    if (timer !== null) schedule();
  }

  function schedule() {
    window.clearTimeout(timer);
    timer = window.setTimeout(tick, STEP_MS / speed);
  }

  function tick() {
    // A live game waits at its last step for the next; a finished one stops there.
    if (current < steps.length - 1) show(current + 1);
    if (current >= steps.length - 1 && !LIVE) pause();
    else schedule();
  }

  function play() {
    if (!steps.length) return;
    if (current >= steps.length - 1 && !LIVE) show(0); // played again from the start
    playButton.textContent = "❚❚ Pause";
    playButton.setAttribute("aria-pressed", "true");
    root.dataset.playing = "true";
    schedule();
  }

  function pause() {
    window.clearTimeout(timer);
    timer = null;
    playButton.textContent = "▶ Play";
    playButton.setAttribute("aria-pressed", "false");
    root.dataset.playing = "false";
  }

  const toggle = () => (timer === null ? play() : pause());
  const faster = (by) => setSpeed(SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, SPEEDS.indexOf(speed) + by))]);
  playButton.addEventListener("click", toggle);
  speedSelect.addEventListener("change", () => setSpeed(Number(speedSelect.value)));
  speedSelect.value = String(speed);
  root.dataset.speed = String(speed);
  root.dataset.playing = "false";

  buttons.first.addEventListener("click", () => show(0));
  buttons.prev.addEventListener("click", () => show(current - 1));
  buttons.next.addEventListener("click", () => show(current + 1));
  buttons.last.addEventListener("click", () => show(steps.length - 1));
  slider.addEventListener("input", () => show(Number(slider.value)));
  root.addEventListener("replay:goto", (event) => {
    const step = event.detail && event.detail.step;
    show(typeof step === "number" ? step : current);
  });

  // Keys work anywhere but where one types (the step slider takes the arrows itself); space
  // is a focused button's or link's own (a table's action buttons among them).
  const typing = (target) => Boolean(target.closest && target.closest("textarea, select, [contenteditable], input:not([type=range])"));
  const pressable = (target) => Boolean(target.closest && target.closest("button, a[href], summary"));
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    const moves = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: steps.length - 1 };
    if (event.key in moves) {
      if (event.target.type === "range") return;
      show(moves[event.key]);
    } else if (event.key === " ") {
      if (pressable(event.target)) return;
      toggle();
    } else if (event.key === "+" || event.key === "=") {
      faster(1);
    } else if (event.key === "-" || event.key === "_") {
      faster(-1);
    } else {
      return;
    }
    event.preventDefault();
  });

  const linked = /^#step-(\d+)$/.exec(window.location.hash);
  // A finished game opens at its end; one being played on its latest step, and follows
  // the game while it shows it.
  show(linked ? Number(linked[1]) - 1 : steps.length - 1);

  // ------------------------------------------------------------------ live: the game grows

  if (!LIVE) return;
  let attempt = LIVE.attempt === undefined ? null : LIVE.attempt;

  function grow(feed) {
    if (feed.attempt !== attempt) {
      // The game started again (a match's new attempt): from its first event.
      attempt = feed.attempt;
      events = [];
      if (feed.since !== 0) return true;
    }
    if (feed.since !== events.length || !feed.events.length) return false;
    const following = current >= steps.length - 1;
    events = events.concat(feed.events);
    steps = build();
    show(following ? steps.length - 1 : current);
    root.dataset.events = String(events.length);
    return false;
  }

  function poll() {
    const url = LIVE.url + (LIVE.url.includes("?") ? "&" : "?") + "since=" + events.length;
    let again = LIVE.every_ms;
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(String(response.status)))))
      .then((body) => {
        document.dispatchEvent(new CustomEvent("replay:live", { detail: body }));
        if (!LIVE.playing.includes(body.status)) {
          again = null;
          window.location.reload(); // over: the page now shows the stored log
          return;
        }
        // A match's answer is the feed itself; a table's carries it as its board.
        const feed = "board" in body ? body.board : body.live ? body : null;
        if (feed && grow(feed)) again = 0;
      })
      .catch(() => {}) // a missed answer: the next one catches up
      .finally(() => { if (again !== null) window.setTimeout(poll, again); });
  }
  root.dataset.events = String(events.length);
  window.setTimeout(poll, LIVE.every_ms);
})();
