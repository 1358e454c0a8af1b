// jstest.js - appended to a copy of a report page by run.sh: drives the
// page's own script as a user would (sorts the tools table by CPU twice,
// clicks a timeline bar) and writes what happened into
// <body data-jstest="{...}"> for page.py to read from the dumped DOM.
(function () {
	var d = document, r = {};
	function col(n) {
		return [].map.call(d.querySelectorAll('#tools tbody tr td:nth-child(' + n + ')'),
			function (c) { return parseFloat(c.getAttribute('data-v')); });
	}
	function sorted(v, desc) {
		return v.length > 1 && v.every(function (x, i) { return i === 0 || (desc ? v[i - 1] >= x : v[i - 1] <= x); })
			&& v[0] !== v[v.length - 1];
	}
	var th = d.querySelector('#tools thead th:nth-child(3)');
	th.click();
	r.sorted_down = sorted(col(3), true);
	th.click();
	r.sorted_up = sorted(col(3), false);
	var bar = d.querySelectorAll('rect[data-p]')[5];
	bar.dispatchEvent(new MouseEvent('click', {bubbles: true}));
	var row = d.getElementById('p' + bar.getAttribute('data-p'));
	r.row_selected = !!row && row.classList.contains('sel') && row.closest('details').open;
	var panel = d.getElementById('detail');
	r.detail_shown = !panel.hidden && panel.textContent.indexOf('pid') >= 0;
	d.body.setAttribute('data-jstest', JSON.stringify(r));
	window.scrollTo(0, 0); /* the screenshot shows the top of the page */
})();
