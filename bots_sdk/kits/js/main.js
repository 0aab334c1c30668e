// A Las Vegas Arena bot in JavaScript (Node 18+): the whole protocol in one
// file (docs/protocol.md).
//
// The referee writes one JSON object per line on stdin; this program answers
// "hello" with "ready" and every "request" with one "action" line on stdout.
// stdout is for protocol lines only: console.log is pointed at stderr, the
// bot's log, so it is safe to use. What you log while deciding is kept with
// that decision, and bot.note (256 bytes) goes with your answer: the replay
// shows both at each of your decisions, to you alone.
//
// Edit choose() below; the rest is plumbing you can keep as it is.
// Run: node main.js
"use strict";

const BOT_NAME = "starter-js";

// splitmix64 (Steele, Lea, Flood 2014): small and well known. Seeded from
// bot_seed at each new game, so the same seed gives the same choices.
// BigInt, since the seed and the arithmetic are 64-bit.
const MASK = (1n << 64n) - 1n;
let rngState = 0n;

function rngNext() {
  rngState = (rngState + 0x9e3779b97f4a7c15n) & MASK;
  let z = rngState;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}

// A number in [0, n), n > 0.
function rngBelow(n) {
  return Number(rngNext() % BigInt(n));
}

// ------------------------------------------------------------------ your bot
const bot = {
  seat: -1, // this game's seat (0-based), from new_game
  game: null, // the game description: rules, options, seats
  timeLeftMs: 0, // how long this decision may take
  note: "", // a note for you, sent with this decision's answer (cleared before each)
};

// ===== choose(observation) -> action: the one place to edit =====
// `observation` (docs/observation.md): casinos, the roll, money, "decision"
// ("place", "kick", ...) and "legal_actions", the strings you may answer
// (grammar in docs/actions.md). Return one of them, verbatim. Answer within
// bot.timeLeftMs (the referee's clock includes the pipe: keep a margin), or
// the seat forfeits the game. This one plays at random.
function choose(observation) {
  const legal = observation.legal_actions; // always at least 2: a forced action is never asked
  bot.note = `${legal.length} legal actions`; // shown in the replay at this decision
  return legal[rngBelow(legal.length)];
}

// ------------------------------------------------------------------ protocol
// The real stdout for protocol lines only: console printing goes to the log
// (so never write to process.stdout yourself).
const protocolOut = process.stdout;
console.log = console.info = console.debug = console.error;

function send(message) {
  // Writes to a pipe are synchronous in Node on Linux: nothing waits in a buffer.
  protocolOut.write(JSON.stringify(message) + "\n");
}

// JSON.parse rounds integers beyond 2^53, as bot_seed often is: take its
// digits as written, when they are this field's.
function botSeed(line, parsed) {
  const match = /"bot_seed"\s*:\s*(\d+)/.exec(line);
  if (match && Number(match[1]) === parsed) return BigInt(match[1]);
  return Number.isInteger(parsed) && parsed >= 0 ? BigInt(parsed) : 0n;
}

function handle(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch (error) {
    console.error(`ignored a line (${error.message}): ${line.slice(0, 200)}`);
    return;
  }
  if (message === null || typeof message !== "object") return;
  switch (message.type) {
    case "hello":
      send({ type: "ready", protocol: 1, name: BOT_NAME });
      break;
    case "new_game":
      bot.seat = message.seat;
      bot.game = message.game;
      rngState = botSeed(line, message.bot_seed) & MASK;
      break;
    case "request": {
      bot.timeLeftMs = message.time_left_ms;
      bot.note = "";
      const reply = { type: "action", id: message.id, action: choose(message.observation) };
      if (bot.note) reply.note = bot.note;
      send(reply);
      break;
    }
    case "shutdown":
      process.exit(0);
      break;
    default: // game_over and unknown types: nothing to answer
  }
}

// Lines end at "\n" only (readline would also split at a "\r", which JSON
// allows as whitespace inside a line).
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  for (let end; (end = pending.indexOf("\n")) >= 0; ) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    handle(line);
  }
});
process.stdin.on("end", () => process.exit(0)); // end of input: as shutdown
