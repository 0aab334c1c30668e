/* A live match's title badge follows its status (queued -> running) as the
 * replay viewer polls; the viewer announces each answer as "replay:live". */
(function () {
  "use strict";
  const badge = document.getElementById("match-status");
  if (!badge) return;
  document.addEventListener("replay:live", (event) => {
    const status = event.detail && event.detail.status;
    if (typeof status !== "string" || badge.dataset.status === status) return;
    badge.dataset.status = status;
    badge.className = "badge status-" + status;
    badge.textContent = status.replace(/_/g, " ");
    const waits = document.getElementById("match-waits");
    if (waits && status !== "queued") waits.remove();
  });
})();
