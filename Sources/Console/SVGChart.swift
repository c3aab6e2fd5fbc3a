import Foundation

/// Charts of the last hour as inline SVG, drawn on the server: no script, and no `style` attribute (the console's
/// content security policy allows neither) — colours are presentation attributes, the rest is the style sheet's.
enum SVGChart {
    /// One line of a chart: a value per minute (minutes without one are 0).
    struct Series {
        var name: String
        var values: [Date: Double]
    }

    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
    private static let (width, height, left, bottom, top) = (720.0, 180.0, 56.0, 22.0, 8.0)

    /// A line per series over the minutes from `start` to `end`, the largest `limit` series by total (the others
    /// summed as "other"), with the y axis in `unit`; `empty` says why there is nothing to draw.
    static func lines(_ title: String, _ series: [Series], from start: Date, to end: Date, unit: String, limit: Int = 6,
                      empty: String) -> String {
        let minutes = stride(from: ConsoleHistory.minute(of: start), through: end, by: 60).map { $0 }
        var shown = series.sorted { $0.values.values.reduce(0, +) > $1.values.values.reduce(0, +) }
        if shown.count > limit {
            let rest = shown[(limit - 1)...]
            shown = Array(shown.prefix(limit - 1)) + [Series(name: "other", values: rest.reduce(into: [:]) { total, series in
                total.merge(series.values, uniquingKeysWith: +)
            })]
        }
        let peak = shown.flatMap { $0.values.values }.max() ?? 0
        guard minutes.count > 1, !shown.isEmpty else {
            return "<figure><figcaption>\(HTML.escape(title))</figcaption><p class=\"empty\">\(HTML.escape(empty))</p></figure>"
        }
        let scale = niceCeiling(peak)
        let x = { (index: Int) in left + (width - left - 4) * Double(index) / Double(minutes.count - 1) }
        let y = { (value: Double) in top + (height - top - bottom) * (1 - value / scale) }
        let lines = shown.enumerated().map { index, series in
            let points = minutes.enumerated().map { "\(format(x($0.offset))),\(format(y(series.values[$0.element] ?? 0)))" }
            return "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"\(palette[index % palette.count])\" points=\"\(points.joined(separator: " "))\"/>"
        }
        let axes = """
            <line class="axis" x1="\(format(left))" y1="\(format(y(0)))" x2="\(format(width - 4))" y2="\(format(y(0)))" stroke="#999"/>\
            <line class="axis" x1="\(format(left))" y1="\(format(top))" x2="\(format(left))" y2="\(format(y(0)))" stroke="#999"/>\
            <text x="\(format(left - 4))" y="\(format(top + 8))" text-anchor="end">\(HTML.escape(label(scale)))</text>\
            <text x="\(format(left - 4))" y="\(format(y(0)))" text-anchor="end">0</text>\
            <text x="\(format(left))" y="\(format(height - 6))">\(HTML.escape(clock(minutes[0])))</text>\
            <text x="\(format(width - 4))" y="\(format(height - 6))" text-anchor="end">\(HTML.escape(clock(minutes[minutes.count - 1])))</text>
            """
        let legend = shown.enumerated().map { index, series in
            "<span class=\"key\"><svg width=\"10\" height=\"10\" aria-hidden=\"true\"><rect width=\"10\" height=\"10\" "
                + "fill=\"\(palette[index % palette.count])\"/></svg> \(HTML.escape(series.name))</span>"
        }
        return """
            <figure><figcaption>\(HTML.escape(title)) (\(HTML.escape(unit)))</figcaption>\
            <svg class="chart" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="\(HTML.escape(title))">\
            <title>\(HTML.escape(title))</title>\(axes)\(lines.joined())</svg>\
            <div class="legend">\(legend.joined(separator: " "))</div></figure>
            """
    }

    /// The smallest of 1, 2 and 5 times a power of ten at or above `value` (1 for nothing).
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, (log10(value)).rounded(.down))
        return [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= value } ?? value
    }

    private static func label(_ value: Double) -> String {
        value >= 1_000_000 ? "\(format(value / 1_000_000))M" : value >= 1000 ? "\(format(value / 1000))k" : format(value)
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    /// The time of day in UTC, `HH:MM`, as the page's ISO 8601 times say it.
    private static func clock(_ date: Date) -> String {
        String(date.formatted(.iso8601.time(includingFractionalSeconds: false)).prefix(5))
    }
}
