// Swap pre-rendered figures when a slider moves (see tools/slider_frames.py). No network access.
(function () {
  function wire(box) {
    var data = JSON.parse(box.getAttribute("data-frames"));
    var inputs = box.querySelectorAll("input[type=range]");
    var img = box.querySelector("img.slider-frames-image");
    var status = box.querySelector(".slider-frames-status");
    function update() {
      var index = 0;
      inputs.forEach(function (input, i) {
        index = index * data.sizes[i] + Number(input.value);
        var values = JSON.parse(input.getAttribute("data-values"));
        var shown = values[Number(input.value)];
        input.setAttribute("aria-valuetext", shown);
        input.parentNode.querySelector("output").textContent = shown;
      });
      img.src = data.files[index];
      img.alt = data.alts[index];
      if (status) { status.textContent = data.alts[index]; }  // announced (role=status, aria-live=polite)
    }
    inputs.forEach(function (input) { input.addEventListener("input", update); });
  }
  function init() { document.querySelectorAll(".slider-frames").forEach(wire); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
})();
