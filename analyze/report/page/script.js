/*
 * darc report's page (analyze/report/page.c embeds this file): lays out the
 * JSON object in #darc-data. Plain JavaScript and SVG, nothing fetched. A
 * failure is shown at the top of the page and left in body's data-error
 * attribute; a page drawn whole has data-rendered="ok" (tests/golden/report.sh
 * reads both in the DOM headless Chromium dumps).
 */
'use strict';
(function () {
	var SVG = 'http://www.w3.org/2000/svg'; /* a namespace name, never fetched */
	var errors = [];

	function fail(msg) {
		errors.push(msg);
		document.body.setAttribute('data-error', errors.join(' | '));
		var box = document.getElementById('darc-errors');
		box.textContent = 'This page could not be drawn whole: ' + errors.join('; ');
		box.style.display = 'block';
	}
	window.addEventListener('error', function (e) {
		fail(e.message + ' (line ' + e.lineno + ')');
	});

	/* An element with attributes and children (strings become text). */
	function el(tag, attrs, kids) {
		var e = document.createElement(tag);
		setAll(e, attrs, kids);
		return e;
	}
	function sv(tag, attrs, kids) {
		var e = document.createElementNS(SVG, tag);
		setAll(e, attrs, kids);
		return e;
	}
	function setAll(e, attrs, kids) {
		Object.keys(attrs || {}).forEach(function (k) {
			if (attrs[k] !== null && attrs[k] !== undefined)
				e.setAttribute(k, attrs[k]);
		});
		(kids || []).forEach(function (k) {
			if (k !== null && k !== undefined)
				e.appendChild(typeof k === 'object' ? k : document.createTextNode(String(k)));
		});
	}

	/* 1234567 ns as "1.23 ms". */
	function ns(v) {
		var u = [[1e9, 's'], [1e6, 'ms'], [1e3, 'us']];
		for (var i = 0; i < u.length; i++)
			if (Math.abs(v) >= u[i][0])
				return (v / u[i][0]).toPrecision(3) + ' ' + u[i][1];
		return Math.round(v) + ' ns';
	}
	function pct(x) {
		return (100 * x).toFixed(x < 0.1 ? 1 : 0) + '%';
	}
	/* A log2 bucket's range, at resolution 1: [2^b, 2^(b+1)). */
	function bucket(b) {
		return (b ? ns(Math.pow(2, b)) : '0') + ' .. ' + ns(Math.pow(2, b + 1));
	}

	/* The tooltip: one box that follows the mouse. */
	var tip;
	function showTip(evt, text) {
		tip.textContent = text;
		tip.style.display = 'block';
		tip.style.left = Math.min(evt.clientX + 14, window.innerWidth - 300) + 'px';
		tip.style.top = (evt.clientY + 14) + 'px';
	}
	function hover(node, text) {
		node.addEventListener('mousemove', function (evt) { showTip(evt, text()); });
		node.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
	}

	/* ---- the summary ---- */

	function summary(d) {
		var r = d.recording || {};
		var lost = (r.lost_events || 0) + (r.lost_marks || 0);
		var rows = [
			['recording', r.source],
			['format', r.format + ' (' + r.tool + ')'],
			['kernel', r.kernel || 'not recorded'],
			['clock', r.clock || '?'],
			['CPUs', r.cpus],
			['span', ns(r.span_ns || 0)],
			['events', r.events],
			['lost', lost ? el('span', {class: 'warn'}, [r.lost_events + ' events lost, ' +
				r.lost_marks + ' ring-buffer pages reported losses: the analysis may lack calls'])
				: 'nothing'],
			['tasks', r.tasks],
			['functions', r.functions],
			['calls', r.calls],
			['bios', r.bios],
		];
		if (r.lacks)
			rows.push(['the format lacks', r.lacks]);
		var busiest = (r.busiest || []).map(function (t) {
			return t.comm + ' [' + t.tid + '] ' + t.calls + ' calls';
		}).join(', ');
		rows.push(['busiest tasks', busiest || 'none']);
		var table = el('table', {}, rows.map(function (row) {
			return el('tr', {}, [el('th', {}, [row[0]]), el('td', {}, [row[1]])]);
		}));
		var toc = el('ol', {class: 'toc'}, (d.subjects || []).map(function (s, i) {
			var c = (s.causes || [])[0];
			return el('li', {}, [el('a', {href: '#subject-' + (i + 1)}, [s.title]), ': ',
				c ? c.sentence.replace(/^[^:]*: /, '') : 'no cause named']);
		}));
		return el('section', {id: 'summary'}, [el('h2', {}, ['The recording']), table,
			el('h3', {}, ['Entry points explained (' + (d.subjects || []).length + ' of ' +
				d.entry_points + ')']), toc]);
	}

	/* ---- a subject ---- */

	/* Subject @s's histogram: darc's SVG, a bar's numbers on hover, a peak's part on click. */
	function histogram(s, parts, open) {
		var h = s.hist, box = el('div', {class: 'plot hist'});
		if (!h || !h.svg)
			return box;
		box.innerHTML = h.svg;
		var calls = h.count.reduce(function (a, b) { return a + b; }, 0);
		var lat = h.lat_ns.reduce(function (a, b) { return a + b; }, 0);
		box.querySelectorAll('rect.bar').forEach(function (bar) {
			var b = +bar.getAttribute('data-bucket'), i = b - h.lo;
			hover(bar, function () {
				return 'bucket ' + b + ' (' + bucket(b) + '): ' + h.count[i] + ' calls (' +
					pct(h.count[i] / calls) + '), ' + ns(h.lat_ns[i]) + ' of latency (' +
					pct(lat ? h.lat_ns[i] / lat : 0) + ')';
			});
		});
		box.querySelectorAll('rect.peak').forEach(function (pk) {
			var lo = +pk.getAttribute('data-lo'), hi = +pk.getAttribute('data-hi');
			var k = parts.findIndex(function (p) {
				return p.slow.lo <= hi && p.slow.hi >= lo;
			});
			pk.style.cursor = k >= 0 ? 'pointer' : 'default';
			hover(pk, function () {
				return 'peak ' + pk.getAttribute('data-peak') + ': buckets ' + lo + '-' + hi +
					(k >= 0 ? ' (click: its search tree)' : '');
			});
			if (k >= 0)
				pk.addEventListener('click', function () { open(k); });
		});
		return box;
	}

	/* Cause @c's wake-up chain, step by step, where it has one. */
	function chain(c) {
		var steps = (c.wake && c.wake.chain) || [];
		if (!steps.length)
			return null;
		return el('div', {class: 'chain'}, ['wake-up chain: '].concat(steps.map(function (st) {
			var t = st.kind + (st.who ? ' ' + st.who : '') + (st.what ? ' (' + st.what + ')' : '');
			if (st.n)
				t += ' ' + st.n;
			return el('span', {}, [t]);
		})));
	}

	/* The search tree of a part: each node collapsible, its children inside it. */
	function tree(p) {
		var nodes = p.nodes || [];
		var made = nodes.map(function (n) {
			var label = [el('span', {class: 'share'}, [pct(n.share || 0)]), ' ',
				n.name || '?', ' ', el('span', {class: 'kind'}, ['[' + n.kind + ']']),
				' ' + ns(n.total_ns || 0) + ', ' + n.maxcount + '/' + n.calls + ' votes',
				n.status ? el('span', {class: 'status'}, [' ' + n.status]) : null,
				n.by_time ? ' (followed for its time)' : null];
			var d = el('details', {class: 'node', open: ''}, [el('summary', {}, label)]);
			(n.runners_up || []).slice(0, 3).forEach(function (r) {
				d.appendChild(el('div', {class: 'leaf muted'}, ['runner-up: ' + r.name + ' [' +
					r.kind + '] ' + pct(r.share || 0) + ', ' + r.maxcount + ' votes']));
			});
			return d;
		});
		var root = null;
		nodes.forEach(function (n, i) {
			if (n.parent >= 0 && made[n.parent])
				made[n.parent].appendChild(made[i]);
			else if (!root)
				root = made[i];
		});
		return el('details', {class: 'tree'}, [el('summary', {}, ['search tree (search ' +
			p.search + ', ' + nodes.length + ' nodes): share of the part\'s latency, votes']),
			root]);
	}

	/* A flame graph of a part's calls, callers above; hover: a frame's time; click: zoom. */
	function flame(f) {
		var W = 960, RH = 17, box = el('div', {class: 'plot flame'});
		if (!f || !f.tree || !f.tree.length)
			return box;
		var depthOf = function (n) {
			return 1 + (n.k || []).reduce(function (m, c) { return Math.max(m, depthOf(c)); }, 0);
		};
		var root = {n: 'all ' + f.calls + ' calls', v: f.total, c: f.calls, k: f.tree};
		function draw(top) {
			var rows = depthOf(top), svg = sv('svg', {width: W, height: rows * RH + 4,
				viewBox: '0 0 ' + W + ' ' + (rows * RH + 4), class: 'flame-svg'});
			function frame(n, x, w, depth) {
				if (w < 0.5)
					return;
				var hue = 10 + (n.n.length * 37) % 40;
				var r = sv('rect', {x: x, y: depth * RH, width: w, height: RH - 1,
					fill: 'hsl(' + hue + ',85%,' + (depth ? 62 : 70) + '%)', class: 'frame'});
				hover(r, function () {
					return n.n + ': ' + ns(n.v) + ' (' + pct(root.v ? n.v / root.v : 0) +
						' of the part), ' + n.c + ' calls';
				});
				r.addEventListener('click', function () {
					box.replaceChild(draw(n === top ? root : n), box.firstChild);
				});
				svg.appendChild(r);
				if (w > 30)
					svg.appendChild(sv('text', {x: x + 3, y: depth * RH + 12},
						[n.n.slice(0, Math.floor(w / 7))]));
				var cx = x;
				(n.k || []).slice().sort(function (a, b) { return b.v - a.v; }).forEach(function (c) {
					var cw = n.v ? w * c.v / n.v : 0;
					frame(c, cx, cw, depth + 1);
					cx += cw;
				});
			}
			frame(top, 0, W, 0);
			return svg;
		}
		box.appendChild(draw(root));
		box.appendChild(el('div', {class: 'small muted'}, ['Flame graph of the part\'s calls,' +
			' summed by call path (time less the interrupts and preemption in it); a frame\'s' +
			' width is its time; click a frame to zoom in, the top one to zoom out.']));
		return box;
	}

	/* The heat map: darc's SVG, a cell's numbers on hover. */
	function heat(s) {
		var box = el('div', {class: 'plot heat'});
		if (!s.heat || !s.heat.svg)
			return box;
		box.innerHTML = s.heat.svg;
		var dt = s.heat.interval_ns;
		box.querySelectorAll('rect.cell').forEach(function (c) {
			var row = +c.getAttribute('data-row'), b = +c.getAttribute('data-bucket');
			hover(c, function () {
				return 'window ' + (row + 1) + ' (' + ns(dt) + ' wide), bucket ' + b + ' (' +
					bucket(b) + '): ' + c.getAttribute('data-count') + ' calls';
			});
		});
		return box;
	}

	function partTitle(p) {
		var how = {peak: 'slow peak', tail: 'slow tail', body: 'typical calls'}[p.slow.how];
		return how + ': buckets ' + p.slow.lo + '-' + p.slow.hi + ' (' + bucket(p.slow.lo).split(
			' .. ')[0] + ' .. ' + bucket(p.slow.hi).split(' .. ')[1] + '), ' + p.slow.calls +
			' calls, ' + pct(p.slow.share) + ' of its latency' + (p.body ? '; body: buckets ' +
			p.body.lo + '-' + p.body.hi + ', ' + p.body.calls + ' calls' : '');
	}

	function subject(s, i) {
		var parts = [s].concat(s.more || []), boxes = [];
		function open(k) {
			var t = boxes[k].querySelector('details.tree');
			t.open = true;
			boxes[k].classList.add('highlight');
			boxes[k].scrollIntoView({block: 'start'});
		}
		parts.forEach(function (p, k) {
			boxes.push(el('div', {class: 'part', id: 'subject-' + (i + 1) + '-part-' + (k + 1)}, [
				el('h3', {}, [partTitle(p)]),
				el('ol', {class: 'causes'}, (p.causes || []).map(function (c) {
					return el('li', {class: 'cause'}, [c.sentence, chain(c)]);
				})),
				tree(p), flame(p.flame)]));
		});
		return el('article', {class: 'subject', id: 'subject-' + (i + 1)}, [
			el('h2', {}, [(i + 1) + '. ' + s.title + ': ' + s.kind + ' ' + s.func + ', ' + s.calls +
				' calls, ' + ns(s.total_ns) + ' in all']),
			histogram(s, parts, open)].concat(boxes, [
			el('h3', {}, ['Over time']), heat(s)]));
	}

	/* ---- waits and I/O ---- */

	function wait(w) {
		var li = el('li', {class: 'wait'}, [w.comm + ' [' + w.task + '] waited ' + ns(w.ns) + ' (' +
			w.category + ')' + (w.waker ? ', woken by ' + w.waker_comm + ' [' + w.waker + ']' :
			'') + ', then ' + ns(w.run_delay_ns || 0) + ' before it ran']);
		if (w.behind)
			li.appendChild(el('ul', {}, [el('li', {class: 'muted'}, ['behind it:']), wait(w.behind)]));
		return li;
	}

	function waits(d) {
		if (!d.waits || !d.waits.length)
			return null;
		return el('section', {id: 'waits'}, [el('h2', {}, ['Longest waits of ' + d.waits[0].comm +
			' [' + d.waits[0].task + '], with the waits behind them']),
			el('ol', {}, d.waits.map(wait))]);
	}

	var LAYER_COLOUR = ['#264653', '#2a9d8f', '#e9c46a', '#f4a261', '#e76f51', '#8ab17d',
		'#6d597a', '#b56576', '#999', '#4d908e', '#f9844a', '#577590', '#c9ada7'];

	function io(d) {
		var e = ((d.io || {}).entry_points || []).filter(function (x) {
			return Object.keys(x.layers || {}).length;
		});
		var dev = (d.io || {}).devices || [];
		if (!(d.recording || {}).bios)
			return null; /* no block I/O recorded: the layers would be the CPU's and waits' */
		var names = [];
		e.forEach(function (x) {
			Object.keys(x.layers).forEach(function (k) {
				if (names.indexOf(k) < 0)
					names.push(k);
			});
		});
		var rows = e.map(function (x) {
			var total = names.reduce(function (a, k) { return a + (x.layers[k] || 0); }, 0);
			var svg = sv('svg', {width: 400, height: 16, viewBox: '0 0 400 16'}), at = 0;
			names.forEach(function (k, j) {
				var w = total ? 400 * (x.layers[k] || 0) / total : 0;
				var r = sv('rect', {x: at, y: 0, width: w, height: 16,
					fill: LAYER_COLOUR[j % LAYER_COLOUR.length], class: 'layer'});
				hover(r, function () {
					return k + ': ' + ns(x.layers[k] || 0) + ' (' + pct(total ? (x.layers[k] ||
						0) / total : 0) + ')';
				});
				svg.appendChild(r);
				at += w;
			});
			return el('tr', {}, [el('td', {}, [x.func]), el('td', {}, [x.requests + ' slowest of ' +
				x.calls]), el('td', {}, [svg])]);
		});
		var legend = el('div', {class: 'bar-legend'}, names.map(function (k, j) {
			return el('span', {}, [el('i', {style: 'background:' + LAYER_COLOUR[j %
				LAYER_COLOUR.length]}), k]);
		}));
		var devs = dev.map(function (x) {
			return el('tr', {}, [el('td', {}, ['device ' + x.dev]), el('td', {}, [x.bios + ' bios']),
				el('td', {}, ['queue ' + ns(x.queue_mean_ns || 0) + ' on average; device p50 ' +
				ns(x.device_p50_ns || 0) + ', p90 ' + ns(x.device_p90_ns || 0) + ', max ' +
				ns(x.device_max_ns || 0)])]);
		});
		return el('section', {id: 'io'}, [el('h2', {}, ['I/O']),
			e.length ? el('h3', {}, ['Where the slowest calls of the entry point with the most' +
				' latency spent their time, by layer (darc io)']) : null, e.length ? legend : null, el('table', {}, rows),
			dev.length ? el('h3', {}, ['Devices']) : null, el('table', {}, devs)]);
	}

	function render(d) {
		var main = document.getElementById('page');
		tip = el('div', {id: 'tip'});
		document.body.appendChild(tip);
		var r = d.recording || {};
		document.title = 'darc report: ' + String(r.source || '').split('/').pop();
		main.appendChild(el('h1', {}, ['darc report: ' + String(r.source || '?').split('/').pop()]));
		main.appendChild(el('div', {class: 'muted small'}, ['darc ' + d.darc + '; every time in' +
			' the recording\'s clock; buckets are log2 of the latency in ns']));
		main.appendChild(summary(d));
		var subs = el('div', {id: 'subjects'}, (d.subjects || []).map(subject));
		if (!(d.subjects || []).length)
			subs.appendChild(el('section', {}, ['No entry point called twice or more: nothing' +
				' to explain.']));
		main.appendChild(subs);
		[waits(d), io(d)].forEach(function (x) {
			if (x)
				main.appendChild(x);
		});
	}

	try {
		render(JSON.parse(document.getElementById('darc-data').textContent));
		if (!errors.length)
			document.body.setAttribute('data-rendered', 'ok');
	} catch (e) {
		fail(String((e && e.stack) || e));
	}
})();
