// The report pages' one stylesheet (run reports and sweep reports look alike).
#pragma once

namespace ntpb::report {

inline constexpr const char* kPageStyle = R"(<style>
body{font-family:sans-serif;margin:24px;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#eee}td:first-child,th:first-child{text-align:left}
h2{border-bottom:2px solid #4e79a7;padding-bottom:4px;margin-top:32px}
details{margin:12px 0;border:1px solid #ddd;padding:8px}summary{font-weight:bold;cursor:pointer}
.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px}
.heat{display:block;padding:0 4px}.unreliable{color:#b2182b;font-weight:bold}svg{display:block;margin:8px 0}
.charts{display:flex;flex-wrap:wrap;gap:8px}.charts svg{margin:0}
.bad{color:#c0392b;font-weight:bold}
td.text{text-align:left;overflow-wrap:anywhere}
</style>)";

}  // namespace ntpb::report
