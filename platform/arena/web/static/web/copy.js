// Copy buttons: <button data-copy="ID"> copies the text of the element with that id.
"use strict";
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(
    () => {
      button.textContent = "Copied";
      setTimeout(() => { button.textContent = "Copy"; }, 2000);
    },
    () => { button.textContent = "Select and copy"; },
  );
});
