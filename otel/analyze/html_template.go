package analyze

// pageHTML is the report page. It loads nothing from the network.
const pageHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body{font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:16px 20px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 2px}h2{font-size:15px;margin:22px 0 6px}
.sub{color:#666;margin-bottom:10px}
.kpi{display:flex;gap:12px;flex-wrap:wrap;margin:8px 0 12px}
.kpi div{border:1px solid #ddd;border-radius:6px;padding:6px 12px;background:#fafafa}
.kpi b{display:block;font-size:18px}
.tl{overflow-x:auto;border:1px solid #ddd;border-radius:6px}
svg text{font:11px system-ui,sans-serif;fill:#333}
svg .axis{fill:#777}
rect.run,rect.job,rect.busy,rect.idle{stroke:#fff;stroke-width:.4}
rect.wait{stroke:#c62828;stroke-width:.6}
rect.err{stroke:#b00020;stroke-width:2}
rect:hover{opacity:.75}
table{border-collapse:collapse;font-size:12px}
th,td{padding:3px 9px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
.legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px;border-radius:2px}
.warn{background:#fff4e5;border-left:4px solid #f57c00;padding:6px 10px;margin:6px 0}
#tip{position:fixed;pointer-events:none;background:#263238;color:#fff;padding:6px 8px;border-radius:4px;font:11px/1.35 ui-monospace,monospace;white-space:pre;display:none;z-index:9;max-width:520px}
</style></head><body>
<h1>{{.Title}}</h1>
<div class="sub">{{.Subtitle}}</div>
<div class="kpi">
<div>makespan<b>{{dur .R.Makespan}}</b></div>
<div>jobs<b>{{.R.Jobs}}{{if .R.JobsFailed}} ({{.R.JobsFailed}} failed){{end}}</b></div>
<div>partitions<b>{{.R.Partitions}}</b></div>
{{if .R.JobsPerMinute}}<div>throughput<b>{{printf "%.2f" .R.ProofsPerMinute}} proofs/min</b></div><div>job rate<b>{{printf "%.2f" .R.JobsPerMinute}}/min</b></div>{{end}}
{{range .R.Devices}}<div>gpu {{.Device}} busy<b>{{pct100 .BusyPct}}</b></div>{{end}}
</div>
{{range .R.Warnings}}<div class="warn">⚠ {{.}}</div>{{end}}
{{with .Note}}<div class="warn">ⓘ {{.}}</div>{{end}}<div class="legend">{{range .Legend}}<span><i style="background:{{.Color}}"></i>{{.Name}}</span>{{end}}<span><i style="background:#fff;border:1px solid #c62828"></i>lock wait</span><span><i style="background:#2e7d32"></i>gpu busy</span><span><i style="background:#ffcdd2"></i>gpu idle gap</span></div>
<div class="tl">
<svg xmlns="http://www.w3.org/2000/svg" width="{{f .W}}" height="{{f .H}}" viewBox="0 0 {{f .W}} {{f .H}}">
<defs><pattern id="hatch" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="5" height="5" fill="#ffebee"/><line x1="0" y1="0" x2="0" y2="5" stroke="#e53935" stroke-width="2"/></pattern></defs>
{{range .Rows}}{{if .Shade}}<rect x="0" y="{{f .Y}}" width="100%" height="{{f .H}}" fill="#f7f9fb"/>{{end}}
<text x="6" y="{{f .LabelY}}">{{.Label}}</text>{{end}}
{{range .Ticks}}<line x1="{{f .X}}" x2="{{f .X}}" y1="18" y2="{{f $.H}}" stroke="#e3e3e3"/><text class="axis" x="{{f .X}}" y="13" text-anchor="middle">{{.Label}}</text>{{end}}
{{range .Bars}}<rect class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}" fill="{{.Fill}}" data-tip="{{.Tip}}"/>{{end}}
</svg></div>
<div id="tip"></div>

<h2>Stages</h2>
<table><tr><th>stage</th><th>type</th><th>count</th><th>errors</th><th>mean</th><th>p50</th><th>p95</th><th>max</th><th>mean wait</th></tr>
{{range .R.Stages}}<tr><td><span class="legend"><i style="background:{{color .Name}}"></i></span>{{.Name}}</td><td>{{.Type}}</td><td>{{.Count}}</td><td>{{.Errors}}</td><td>{{dur .Mean}}</td><td>{{dur .P50}}</td><td>{{dur .P95}}</td><td>{{dur .Max}}</td><td>{{dur .MeanWait}}</td></tr>
{{end}}</table>

<h2>Resources</h2>
<p>{{.LockLegend}}.</p>
<table><tr><th>resource</th><th>capacity</th><th>holds</th><th>utilization</th><th>mean holders</th><th>max holders</th><th>waits</th><th>contention</th><th>wait total</th><th>wait mean</th><th>wait max</th></tr>
{{range .R.Resources}}<tr><td>{{.Name}}</td><td>{{if .Capacity}}{{.Capacity}}{{else}}-{{end}}</td><td>{{.Holds}}</td><td>{{pct .Utilization}}</td><td>{{printf "%.2f" .MeanHolders}}</td><td>{{.MaxHolders}}</td><td>{{.Waits}}</td><td>{{pct .Contention}}</td><td>{{dur .WaitTotal}}</td><td>{{dur .WaitMean}}</td><td>{{dur .WaitMax}}</td></tr>
{{end}}</table>

<h2>Devices</h2>
<p>Busy: {{.R.BusyRule}}.</p>
<table><tr><th>device</th><th>busy</th><th>busy %</th><th>idle</th><th>idle gaps</th></tr>
{{range .R.Devices}}<tr><td>gpu {{.Device}}</td><td>{{dur .Busy}}</td><td>{{pct100 .BusyPct}}</td><td>{{dur .Idle}}</td><td style="text-align:left">{{range .Gaps}}{{dur .Duration}} at +{{dur .Offset}}{{if .Running}} ({{range $i, $r := .Running}}{{if $i}}, {{end}}{{$r}}{{end}}){{end}}<br>{{end}}</td></tr>
{{end}}</table>

{{with .R.Critical}}{{if .Steps}}<h2>Critical path of the slowest job “{{.Job}}” ({{dur .Duration}})</h2>
<p>run {{dur .Run}} · wait {{dur .Wait}} · lead {{dur .Lead}}</p>
<table><tr><th>at</th><th>stage</th><th>partition</th><th>device</th><th>attempt</th><th>wait</th><th>run</th><th>waited on</th></tr>
{{range .Steps}}<tr><td>+{{dur .Offset}}</td><td style="text-align:left">{{.Stage}}{{if .Failed}} ✗{{end}}</td><td>{{.Partition}}</td><td>{{.Device}}</td><td>{{.Attempt}}</td><td>{{dur .Wait}}</td><td>{{dur .Run}}</td><td style="text-align:left">{{range $i, $w := .WaitedOn}}{{if $i}}, {{end}}{{$w}}{{end}}</td></tr>
{{end}}</table>{{end}}{{end}}

<script type="application/json" id="prooflane-report">{{.Data}}</script>
<script>
(function(){var tip=document.getElementById('tip');
document.querySelectorAll('rect[data-tip]').forEach(function(r){
r.addEventListener('mousemove',function(e){tip.textContent=r.getAttribute('data-tip');tip.style.display='block';
var x=e.clientX+14,y=e.clientY+14;if(x+tip.offsetWidth>innerWidth)x=e.clientX-tip.offsetWidth-10;if(y+tip.offsetHeight>innerHeight)y=e.clientY-tip.offsetHeight-10;
tip.style.left=x+'px';tip.style.top=y+'px';});
r.addEventListener('mouseleave',function(){tip.style.display='none';});});})();
</script>
</body></html>
`
