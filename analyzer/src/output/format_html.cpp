// The HTML export: one self-contained page (inline CSS and JavaScript, no network load) with an
// icicle graph of the data-centric tree (variables, their allocation paths, their access paths;
// the stacks of the folded export) and a sortable table of the variables. Every name is escaped
// for HTML, and the tree's names for a JavaScript string inside <script>; names are also made
// printable first (a crafted symbol could carry NUL or ESC).
#include <cstdio>
#include <map>
#include <memory>

#include "exports.h"
#include "hpcl/text/format_common.h"
#include "hpcl/text/words.h"
#include "text_evidence.h"

namespace hpcl::analysis {
namespace {

std::string html(std::string_view raw) {
  std::string s = printable_for_terminal(raw), out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\n': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

// A JavaScript string literal that cannot end the <script> element: '<', '>' and '&' are
// escaped too, and so are U+2028/U+2029 (line terminators to older engines).
std::string js_string(std::string_view raw) {
  std::string s = printable_for_terminal(raw), out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else if (c == 0xe2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(s[i + 2]) == 0xa8 || static_cast<unsigned char>(s[i + 2]) == 0xa9)) {
      out += static_cast<unsigned char>(s[i + 2]) == 0xa8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// The icicle's tree: the folded stacks merged by frame. Children keep first-seen order, which is
// hottest first (folded_stacks' order).
struct Node {
  FoldedPart part = FoldedPart::Variable;
  std::string name;
  uint64_t value = 0;
  std::vector<std::unique_ptr<Node>> children;
  std::map<std::pair<char, std::string>, Node*> index;
};

Node build_tree(const std::vector<FoldedStack>& stacks) {
  Node root;
  root.name = "all samples";
  for (const FoldedStack& s : stacks) {
    Node* at = &root;
    at->value += s.count;
    for (const FoldedFrame& f : s.frames) {
      auto key = std::make_pair(static_cast<char>(f.part), f.name);
      auto it = at->index.find(key);
      if (it == at->index.end()) {
        at->children.push_back(std::make_unique<Node>());
        Node* child = at->children.back().get();
        child->part = f.part;
        child->name = f.name;
        it = at->index.emplace(key, child).first;
      }
      at = it->second;
      at->value += s.count;
    }
  }
  return root;
}

// [name, samples, part, [children]]; children below `min_value` are left out (the page stays
// small enough to mail; their parent's width still counts them).
void write_node(const Node& n, uint64_t min_value, std::ostream& out) {
  out << '[' << js_string(n.name) << ',' << n.value << ",\"" << static_cast<char>(n.part) << "\",[";
  bool first = true;
  for (const auto& c : n.children) {
    if (c->value < min_value) continue;
    if (!first) out << ',';
    write_node(*c, min_value, out);
    first = false;
  }
  out << "]]";
}

const char kStyle[] = R"CSS(
body{font:14px system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:18px 0 6px}h3{font-size:14px;margin:12px 0 2px}
.note{color:#555;margin:2px 0}
#flame{position:relative;width:100%;overflow:hidden;border:1px solid #ddd;background:#fafafa}
#flame div{position:absolute;height:17px;line-height:17px;font-size:12px;overflow:hidden;
 white-space:nowrap;text-overflow:ellipsis;padding:0 3px;box-sizing:border-box;cursor:pointer;
 border-right:1px solid #fff;border-bottom:1px solid #fff}
#flame div:hover{outline:1px solid #000}
#detail{min-height:18px;font-family:monospace;font-size:12px;margin:4px 0}
table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top;max-width:40em;overflow-wrap:anywhere}
th{background:#eee;cursor:pointer;user-select:none}th:after{content:" \2195";color:#999}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.legend span{display:inline-block;padding:0 6px;margin-right:6px}
)CSS";

// Draws the icicle into #flame (click a frame to zoom into it, click a frame above to zoom out;
// the samples without a data address only when #nodata is ticked) and makes the table sortable
// by any column (click a header; again to reverse).
const char kScript[] = R"JS(
(function(){
var flame=document.getElementById('flame'),detail=document.getElementById('detail');
var H=18,colours={v:[140,45],a:[210,55],x:[20,70],n:[0,0]};
function colour(n){var c=colours[n[2]]||[0,0],h=0;for(var i=0;i<n[0].length;i++)h=(h*31+n[0].charCodeAt(i))%997;
 return 'hsl('+c[0]+','+c[1]+'%,'+(c[1]?62+h%18:78+h%10)+'%)';}
function depth(n){var d=0;for(var i=0;i<n[3].length;i++)d=Math.max(d,depth(n[3][i]));return d+1;}
var total=TREE[1];
function describe(n){return n[0]+'  '+n[1]+' samples ('+(100*n[1]/total).toFixed(2)+'%)';}
function box(n,x,w,d,zoomTo){var e=document.createElement('div');e.style.left=x+'px';e.style.width=w+'px';
 e.style.top=(d*H)+'px';e.style.background=colour(n);e.textContent=w>30?n[0]:'';e.title=describe(n);
 e.onmouseover=function(){detail.textContent=describe(n);};
 e.onclick=function(){draw(zoomTo);};flame.appendChild(e);}
function draw(path){flame.textContent='';var W=flame.clientWidth||1000,z=path[path.length-1];
 flame.style.height=((path.length-1+depth(z))*H)+'px';
 for(var i=0;i<path.length-1;i++)box(path[i],0,W,i,path.slice(0,i+1));
 (function lay(n,x,w,d,p){box(n,x,w,d,p);var cx=x;for(var i=0;i<n[3].length;i++){var c=n[3][i],cw=w*c[1]/n[1];
  if(cw>=1)lay(c,cx,cw,d+1,p.concat([c]));cx+=cw;}})(z,0,W,path.length-1,path);}
// By default the icicle shows the samples on data only: in a compute-bound code the samples
// without a data address are most of the width (GROMACS: 70%) and squeeze the variables.
var withNoData=document.getElementById('nodata');
function shown(){if(withNoData.checked)return TREE;var kids=TREE[3].filter(function(c){return c[2]!='n';}),v=0;
 kids.forEach(function(c){v+=c[1];});return ['samples on data',v,'v',kids];}
draw([shown()]);
withNoData.onchange=function(){draw([shown()]);};
window.addEventListener('resize',function(){draw([shown()]);});
var table=document.getElementById('vars'),dir={};
Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,col){th.onclick=function(){
 var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows),num=th.className=='n';
 dir[col]=-(dir[col]||(num?1:-1));
 rows.sort(function(a,b){var x=a.cells[col].getAttribute('data-v')||a.cells[col].textContent,
  y=b.cells[col].getAttribute('data-v')||b.cells[col].textContent;
  return dir[col]*(num?(Number(x)-Number(y)):x.localeCompare(y));});
 rows.forEach(function(r){body.appendChild(r);});};});
})();
)JS";

// "Why, and what to try": for each listed variable the binaries were read for, its hottest source
// lines with their access patterns, the fields that carry its samples, and the advice
// (docs/REPORT.md).
void write_evidence(const ReportModel& m, const ReportOptions& options, std::ostream& out) {
  const size_t n = rows_to_print(m.variables.size(), options.top);
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    const Variable& v = m.variables[i];
    const AccessEvidence& e = v.evidence;
    if (!e.analysed || e.unreadable || v.samples == 0) continue;
    if (!any) out << "<h2>Why, and what to try</h2>\n";
    any = true;
    out << "<h3>" << i + 1 << ". " << html(v.name) << "</h3>\n<ul>\n";
    for (size_t k = 0; k < e.lines.size() && k < 5; ++k) {
      const LinePattern& l = e.lines[k];
      if (l.pattern.unreadable) continue;
      out << "<li>" << percent(static_cast<double>(l.samples) / static_cast<double>(v.samples)) << " "
          << html(line_label(l)) << ": <b>" << html(pattern_text(l.pattern, true)) << "</b></li>\n";
    }
    out << "</ul>\n";
    const std::string fields = fields_text(v);
    if (!fields.empty()) out << "<p class=\"note\">Fields: " << html(fields) << "</p>\n";
    for (const Advice& a : e.advice) out << "<p><b>What to try</b> (" << html(a.kind) << "): " << html(a.text) << "</p>\n";
  }
}

}  // namespace

void write_html(const ReportModel& m, const ReportOptions& options, std::ostream& out) {
  const std::vector<FoldedStack> stacks = folded_stacks(m, options.top);
  const Node root = build_tree(stacks);
  const double total = static_cast<double>(m.total_samples);
  auto share = [&](uint64_t x) { return percent(total > 0 ? static_cast<double>(x) / total : 0); };

  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width\">\n"
         "<title>hpcprof-lite: variables by samples</title>\n<style>"
      << kStyle << "</style></head>\n<body>\n<h1>Variables by samples</h1>\n";
  out << "<p class=\"note\">" << count_of(m.total_samples, "sample");
  if (!m.source.empty()) out << " (source " << html(m.source) << ")";
  out << "; " << m.data_samples << " on data (" << share(m.data_samples) << "), " << m.no_data_samples
      << " without a data address; " << count_of(m.processes, "process", "processes") << ", "
      << count_of(m.threads, "thread") << ".</p>\n";
  for (const std::string& note : m.notes) out << "<p class=\"note\">" << html(note) << "</p>\n";
  out << "<h2>Data-centric tree</h2>\n<p class=\"note legend\">Each variable, then where it was "
         "allocated (heap), then the code that accessed it; width = samples. Click a frame to "
         "zoom, a frame above it to zoom out. "
         "<span style=\"background:hsl(140,45%,70%)\">variable</span>"
         "<span style=\"background:hsl(210,55%,70%)\">allocation path</span>"
         "<span style=\"background:hsl(20,70%,70%)\">access path</span>"
         "<span style=\"background:hsl(0,0%,82%)\">no data</span></p>\n"
         "<p class=\"note\"><label><input type=\"checkbox\" id=\"nodata\"> also the samples without "
         "a data address (code time; shares stay of all samples)</label></p>\n"
         "<div id=\"flame\"></div>\n<div id=\"detail\"></div>\n";

  out << "<h2>Variables</h2>\n<table id=\"vars\"><thead><tr><th class=\"n\">#</th><th>variable</th>"
         "<th>kind</th><th class=\"n\">samples</th><th class=\"n\">share</th><th class=\"n\">bytes</th>"
         "<th class=\"n\">allocations</th><th>allocated at / module</th><th>hottest access</th>"
         "<th>its pattern</th></tr></thead>\n<tbody>\n";
  const size_t n = rows_to_print(m.variables.size(), options.top);
  for (size_t i = 0; i < n; ++i) {
    const Variable& v = m.variables[i];
    if (v.samples == 0 && !options.all) continue;
    const std::string& where = v.kind == VariableKind::Heap ? v.allocation_site : v.module;
    out << "<tr><td class=\"n\">" << i + 1 << "</td><td>" << html(v.name) << "</td><td>"
        << kind_name(v.kind) << "</td><td class=\"n\">" << v.samples << "</td><td class=\"n\" data-v=\""
        << fixed(v.share, 6) << "\">" << percent(v.share) << "</td><td class=\"n\" data-v=\"" << v.bytes
        << "\">" << (v.bytes ? human_bytes(v.bytes) : "") << "</td><td class=\"n\">"
        << (v.kind == VariableKind::Heap ? std::to_string(v.allocations) : "") << "</td><td>"
        << html(where) << "</td><td>" << html(v.hottest_access) << "</td><td>"
        << (v.accesses.empty() || !v.accesses.front().pattern.analysed || v.accesses.front().pattern.unreadable
                ? std::string()
                : html(pattern_text(v.accesses.front().pattern, false)))
        << "</td></tr>\n";
  }
  out << "</tbody></table>\n";
  write_evidence(m, options, out);
  out << "<script>\nvar TREE=";
  // A frame narrower than 1/2000 of the samples is under a pixel on a wide screen.
  write_node(root, root.value / 2000 + 1, out);
  out << ";\n" << kScript << "</script>\n</body></html>\n";
}

}  // namespace hpcl::analysis
