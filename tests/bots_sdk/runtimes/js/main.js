// A tiny protocol bot: answers every request with its first legal action.
const readline = require("readline");

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    console.log(JSON.stringify({ type: "ready", protocol: 1, name: "tiny js" }));
  } else if (message.type === "request") {
    const action = message.observation.legal_actions[0];
    console.log(JSON.stringify({ type: "action", id: message.id, action }));
  } else if (message.type === "shutdown") {
    process.exit(0);
  }
});
