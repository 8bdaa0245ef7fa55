// Times in the reader's own time zone: each <time data-local> holds an ISO time, and its
// text (UTC) is what a reader without scripts sees.
document.addEventListener("DOMContentLoaded", function () {
  var format = new Intl.DateTimeFormat(undefined, {weekday: "long", day: "numeric", month: "long",
    year: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short"});
  document.querySelectorAll("time[data-local]").forEach(function (el) {
    var t = new Date(el.getAttribute("datetime"));
    if (!isNaN(t)) { el.title = el.textContent; el.textContent = format.format(t); }
  });
});
