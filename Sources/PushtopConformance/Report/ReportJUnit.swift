import Foundation

/// The report as JUnit XML (one testsuite per group), for CI systems: a failure is a `<failure>`, unsupported and
/// skipped cases are `<skipped>` with why.
public enum ReportJUnit {
    public static func render(_ report: ConformanceReport) -> String {
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        out +=
            #"<testsuites name="pushtop conform" tests="\#(report.summary.total)" failures="\#(report.summary.fail)" "#
            + #"skipped="\#(report.summary.skipped + report.summary.unsupported + (report.summary.notObserved ?? 0))" time="\#(time(report.seconds))">"#
            + "\n"
        var groups: [String] = []
        for c in report.cases where !groups.contains(c.group) { groups.append(c.group) }
        for group in groups {
            let cases = report.cases.filter { $0.group == group }
            let failures = cases.filter { $0.result == .fail }.count
            let skipped = cases.filter { $0.result != .pass && $0.result != .fail }.count
            out +=
                #"  <testsuite name="\#(escape(group))" tests="\#(cases.count)" failures="\#(failures)" "#
                + #"skipped="\#(skipped)" time="\#(time(cases.map(\.seconds).reduce(0, +)))">"# + "\n"
            for c in cases {
                out +=
                    #"    <testcase classname="conform.\#(escape(group))" name="\#(escape(c.id))" time="\#(time(c.seconds))">"#
                switch c.result {
                case .pass: break
                case .fail:
                    let body = ([c.title, c.message, "source: \(c.source.url)"] + (c.evidence ?? [])).joined(
                        separator: "\n")
                    out +=
                        "\n" + #"      <failure type="\#(c.level.rawValue)" message="\#(escape(c.message))">"#
                        + escape(body) + "</failure>\n    "
                case .unsupported, .skipped, .notObserved:
                    out +=
                        "\n" + #"      <skipped message="\#(escape("\(c.result.rawValue): \(c.message)"))"/>"#
                        + "\n    "
                }
                out += "</testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    static func time(_ seconds: Double) -> String { String(format: "%.3f", seconds) }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t", "\r": out.unicodeScalars.append(scalar)
            default:
                // XML 1.0 has no place for other control characters.
                if scalar.value < 0x20 { out += "?" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
