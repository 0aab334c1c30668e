// The new-league form: offer only the entrants that play the chosen ladder's game.
// Without this script every bot is listed and the server refuses a mismatch, saying which.
(function () {
  "use strict";
  var ladder = document.getElementById("id_ladder");
  var boxes = document.querySelectorAll("#entrants input[data-plays]");
  var none = document.getElementById("no-entrants");
  if (!ladder || !boxes.length) {
    return;
  }

  function update() {
    var chosen = ladder.options[ladder.selectedIndex];
    var rules = chosen ? chosen.getAttribute("data-rules") : "";
    var shown = 0;
    boxes.forEach(function (box) {
      // An empty data-plays: the bot has played nothing yet and may enter any game.
      var plays = box.getAttribute("data-plays");
      var fits = !rules || !plays || plays.split(" ").indexOf(rules) !== -1;
      // Disabled boxes are not sent: what is hidden is not entered.
      box.disabled = !fits;
      var row = box.closest("div") || box.parentNode;
      row.hidden = !fits;
      shown += fits ? 1 : 0;
    });
    if (none) {
      none.hidden = shown > 0;
    }
  }

  ladder.addEventListener("change", update);
  update();
})();
