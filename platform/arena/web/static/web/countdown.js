// Countdowns: <time class="countdown" datetime="ISO"> shows the time left, every second.
// The server's text (the date in UTC) stays for readers without scripts.
"use strict";
(() => {
  const clocks = document.querySelectorAll("time.countdown[datetime]");
  if (!clocks.length) return;
  const plural = (n, unit) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  const left = (ms) => {
    const s = Math.floor(ms / 1000);
    const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600);
    const m = Math.floor((s % 3600) / 60), sec = s % 60;
    if (d) return `${plural(d, "day")} ${plural(h, "hour")}`;
    if (h) return `${plural(h, "hour")} ${plural(m, "minute")}`;
    return `${plural(m, "minute")} ${plural(sec, "second")}`;
  };
  const tick = () => {
    const now = Date.now();
    for (const clock of clocks) {
      const ms = Date.parse(clock.getAttribute("datetime")) - now;
      clock.textContent = ms > 0 ? `in ${left(ms)}` : "now (the page updates at the next sweep)";
    }
  };
  tick();
  setInterval(tick, 1000);
})();
