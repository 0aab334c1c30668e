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

// The slug follows the name (lower case, words joined by "-") until the slug is edited by hand.
(function () {
  "use strict";
  var name = document.getElementById("id_name");
  var slug = document.getElementById("id_slug");
  if (!name || !slug) {
    return;
  }
  var follows = slug.value === "" || slug.value === slugify(name.value);

  function slugify(text) {
    return text
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 64)
      .replace(/-+$/, "");
  }

  name.addEventListener("input", function () {
    if (follows) {
      slug.value = slugify(name.value);
    }
  });
  slug.addEventListener("input", function () {
    follows = slug.value === "";
  });
})();

// "Start now" makes the start time moot: grey it out while ticked.
(function () {
  "use strict";
  var now = document.getElementById("id_start_now");
  var at = document.getElementById("id_start_at");
  if (!now || !at) {
    return;
  }
  function update() {
    at.disabled = now.checked;
  }
  now.addEventListener("change", update);
  update();
})();
