// Live reload for `scenario-ratios serve` (never part of the published article): wait for the
// next build, then reload the page.
(function () {
  var me = document.currentScript;
  var version = new URL(me.src).searchParams.get("v");
  function wait() {
    fetch("/__live/wait?v=" + version, { cache: "no-store" })
      .then(function (r) {
        if (!r.ok) { throw new Error("status " + r.status); }
        return r.text();
      })
      .then(function (v) {
        if (v.trim() !== version) {
          location.reload();
        } else {
          wait();
        }
      })
      .catch(function () { setTimeout(wait, 500); });
  }
  wait();
})();
