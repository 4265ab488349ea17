// The graphctx graph viewer: draws the page's graph data with Cytoscape.js, fills the legend, and
// shows an entity's or an edge's details on a click. Every text goes in through textContent, never
// as markup. Once the graph is laid out and drawn, the body's data-rendered-nodes says how many
// nodes are on screen (and data-render-error what went wrong), so a headless browser can check it.
(function () {
  "use strict";
  var body = document.body;
  window.addEventListener("error", function (event) {
    body.dataset.renderError = String(event.message || event.error || "error");
  });

  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var details = document.getElementById("details");
  var elements = data.nodes.map(function (node) {
    return { group: "nodes", data: node, classes: node.id === data.around ? "root" : "" };
  });
  data.edges.forEach(function (edge, i) {
    elements.push({ group: "edges", data: Object.assign({ id: "edge-" + i }, edge) });
  });

  var cy = cytoscape({
    container: document.getElementById("cy"),
    elements: elements,
    minZoom: 0.05,
    maxZoom: 5,
    style: [
      { selector: "node", style: {
        "background-color": "data(color)", "border-color": "data(border)", "border-width": 1.5,
        "shape": "data(shape)", "width": 24, "height": 24, "label": "data(label)", "font-size": 10,
        "text-valign": "bottom", "text-margin-y": 3, "text-wrap": "ellipsis", "text-max-width": "180px",
        "text-background-color": "#ffffff", "text-background-opacity": 0.7, "text-background-padding": "1px" } },
      { selector: "node[kind = 'file']", style: { "width": 34 } },
      { selector: "node.root", style: { "border-width": 4, "width": 32, "height": 32, "font-weight": "bold" } },
      { selector: "edge", style: {
        "width": 1.5, "line-color": "data(color)", "target-arrow-color": "data(color)", "target-arrow-shape": "triangle",
        "arrow-scale": 0.8, "curve-style": "bezier", "line-style": "data(line)", "opacity": 0.8 } },
      { selector: "edge[line = 'dashed']", style: { "line-dash-pattern": [8, 4] } },
      { selector: "edge[line = 'dotted']", style: { "line-dash-pattern": [2, 3] } },
      { selector: ".faded", style: { "opacity": 0.12 } },
      { selector: ".match", style: { "border-color": "#f59e0b", "border-width": 5 } },
      { selector: "node:selected", style: { "border-color": "#111827", "border-width": 4 } },
      { selector: "edge:selected", style: { "width": 3.5, "opacity": 1 } }
    ],
    layout: { name: "preset" }
  });

  var maxDistance = Math.max.apply(null, data.nodes.map(function (n) { return n.distance; }).concat([0]));
  var root = data.around ? cy.getElementById(data.around) : cy.collection();
  var layouts = {
    cose: { name: "cose", animate: false, randomize: true, nodeDimensionsIncludeLabels: true,
            idealEdgeLength: function () { return 70; }, nodeRepulsion: function () { return 9000; },
            numIter: 1500, padding: 30 },
    concentric: { name: "concentric", animate: false, padding: 30, minNodeSpacing: 24,
                  concentric: function (n) { return data.around ? maxDistance - n.data("distance") : n.degree(); },
                  levelWidth: function () { return data.around ? 1 : 2; } },
    breadthfirst: { name: "breadthfirst", animate: false, padding: 30, directed: false, spacingFactor: 1.1,
                    roots: root.nonempty() ? root : undefined },
    grid: { name: "grid", animate: false, padding: 30, avoidOverlap: true }
  };

  function runLayout(name) {
    var layout = cy.layout(layouts[name] || layouts.cose);
    layout.one("layoutstop", function () {
      cy.fit(undefined, 30);
      showLinked();
      cy.one("render", report);  // counted once the renderer has drawn the laid-out graph
      cy.forceRender();
    });
    layout.run();
  }

  // A fragment names an entity to show (graph.html#path/to/file.py::Name), and a click updates it,
  // so a link can point at one entity in the picture.
  function showLinked() {
    var wanted = decodeURIComponent(location.hash.slice(1));
    var node = wanted ? cy.getElementById(wanted) : cy.collection();
    if (node.nonempty()) {
      node.select();
      showNode(node);
    }
  }

  function report() {
    var view = cy.extent();
    var drawn = cy.nodes().filter(function (n) {
      var box = n.boundingBox();
      return n.visible() && isFinite(box.x1) && isFinite(box.y1) &&
        box.x2 >= view.x1 && box.x1 <= view.x2 && box.y2 >= view.y1 && box.y1 <= view.y2;
    });
    body.dataset.renderedNodes = String(drawn.length);
    body.dataset.renderedEdges = String(cy.edges().filter(function (e) { return e.visible(); }).length);
    body.dataset.resourceRequests = String(performance.getEntriesByType("resource").length);
  }

  // ---- details

  function row(list, name, value, pre) {
    if (value === undefined || value === null || value === "") return;
    var dt = document.createElement("dt");
    dt.textContent = name;
    var dd = document.createElement("dd");
    if (pre) {
      var block = document.createElement("pre");
      block.textContent = value;
      dd.appendChild(block);
    } else {
      dd.textContent = value;
    }
    list.append(dt, dd);
  }

  function showNode(node) {
    var d = node.data();
    var list = document.createElement("dl");
    row(list, "id", d.id);
    row(list, "kind", d.kind + " (" + d.language + ")");
    row(list, "where", d.path + ":" + d.start_line + "-" + d.end_line);
    row(list, "signature", d.signature, true);
    row(list, "doc", d.doc, true);
    row(list, "edges", node.outgoers("edge").length + " out, " + node.incomers("edge").length + " in");
    if (data.around) row(list, "hops", d.distance === 0 ? "0: the centre of this picture" : d.distance + " from " + data.around);
    details.replaceChildren(list);
    cy.elements().addClass("faded");
    node.closedNeighborhood().removeClass("faded");
  }

  function showEdge(edge) {
    var d = edge.data();
    var list = document.createElement("dl");
    row(list, "edge", d.kind);
    row(list, "from", d.source);
    row(list, "to", d.target);
    row(list, "resolution", d.resolution + " (" + d.line + ")");
    row(list, "confidence", String(d.confidence));
    details.replaceChildren(list);
    cy.elements().addClass("faded");
    edge.union(edge.connectedNodes()).removeClass("faded");
  }

  function clearDetails() {
    var hint = document.createElement("p");
    hint.className = "hint";
    hint.textContent = "Click an entity or an edge. Drag to pan, scroll to zoom.";
    details.replaceChildren(hint);
    cy.elements().removeClass("faded");
  }

  cy.on("tap", "node", function (event) {
    showNode(event.target);
    history.replaceState(null, "", "#" + encodeURIComponent(event.target.id()));
  });
  cy.on("tap", "edge", function (event) { showEdge(event.target); });
  cy.on("tap", function (event) { if (event.target === cy) clearDetails(); });

  // ---- legend

  function legendRow(parent, swatch, text, count) {
    var line = document.createElement("div");
    var label = document.createElement("span");
    label.textContent = text;
    var number = document.createElement("span");
    number.className = "count";
    number.textContent = String(count);
    line.append(swatch, label, number);
    parent.appendChild(line);
  }

  function lineSwatch(color, dash) {
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", "34");
    svg.setAttribute("height", "10");
    var path = document.createElementNS(ns, "line");
    path.setAttribute("x1", "1"); path.setAttribute("y1", "5");
    path.setAttribute("x2", "33"); path.setAttribute("y2", "5");
    path.setAttribute("stroke", color);
    path.setAttribute("stroke-width", "2");
    if (dash) path.setAttribute("stroke-dasharray", dash);
    svg.appendChild(path);
    return svg;
  }

  var legend = document.getElementById("legend");
  data.legend.kinds.forEach(function (k) {
    var box = document.createElement("span");
    box.className = "swatch";
    box.style.background = k.color;
    box.style.borderColor = k.border;
    if (k.shape === "ellipse") box.style.borderRadius = "50%";
    legendRow(legend, box, k.kind, k.count);
  });
  data.legend.edges.forEach(function (e) { legendRow(legend, lineSwatch(e.color), e.kind, e.count); });
  var dashes = { solid: "", dotted: "2 3", dashed: "8 4" };
  data.legend.lines.forEach(function (l) { legendRow(legend, lineSwatch("#374151", dashes[l.line]), l.line + ": " + l.meaning, l.count); });

  // ---- tools

  var search = document.getElementById("search");
  var matchCount = document.getElementById("matches");
  function matches() {
    var text = search.value.trim().toLowerCase();
    cy.nodes().removeClass("match");
    if (!text) { matchCount.textContent = ""; return cy.collection(); }
    var found = cy.nodes().filter(function (n) {
      return n.data("label").toLowerCase().indexOf(text) >= 0 || n.id().toLowerCase().indexOf(text) >= 0;
    });
    found.addClass("match");
    matchCount.textContent = found.length + (found.length === 1 ? " match" : " matches");
    return found;
  }
  search.addEventListener("input", matches);
  search.addEventListener("keydown", function (event) {
    if (event.key !== "Enter") return;
    var found = matches();
    if (found.nonempty()) {
      cy.fit(found, 60);
      showNode(found[0]);
    }
  });
  document.getElementById("layout").addEventListener("change", function (event) { runLayout(event.target.value); });
  document.getElementById("fit").addEventListener("click", function () { cy.fit(undefined, 30); });

  runLayout(data.around ? "concentric" : "cose");
  document.getElementById("layout").value = data.around ? "concentric" : "cose";
})();
