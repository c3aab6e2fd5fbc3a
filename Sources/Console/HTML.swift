/// Building HTML from untrusted text: every value goes through `escape` (or the `\(text:)` interpolation).
enum HTML {
    /// `text` as HTML character data or a quoted attribute value: `& < > " '` become references.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// A table with a header row; `rows` hold already escaped cell markup.
    static func table(_ headings: [String], _ rows: [[String]], empty: String) -> String {
        guard !rows.isEmpty else { return "<p class=\"empty\">\(escape(empty))</p>" }
        let head = headings.map { "<th>\(escape($0))</th>" }.joined()
        let body = rows.map { "<tr>" + $0.map { "<td>\($0)</td>" }.joined() + "</tr>" }.joined(separator: "\n")
        return "<table><thead><tr>\(head)</tr></thead><tbody>\n\(body)\n</tbody></table>"
    }

    /// A whole page titled `title` with `body` (markup) and the console's style sheet; `refresh` seconds
    /// (if given) until the browser reloads it.
    static func page(_ title: String, refresh: Int? = nil, _ body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">\(refresh.map { "<meta http-equiv=\"refresh\" content=\"\($0)\">" } ?? "")
        <title>\(escape(title))</title><style>\(styleSheet)</style></head>
        <body><h1>\(escape(title))</h1>
        \(body)
        </body></html>
        """
    }

    /// The only style the console's content security policy allows (by its hash).
    static let styleSheet = """
        body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.6em;\
        border-bottom:1px solid #ccc}table{border-collapse:collapse;margin:.4em 0}th,td{border:1px solid #ddd;padding:.2em .5em;\
        text-align:left;vertical-align:top}th{background:#f4f4f4}.stuck{color:#b00;font-weight:bold}.empty{color:#777}\
        .problem{color:#b00}pre{margin:0;white-space:pre-wrap;word-break:break-all;max-width:60em}code{font-size:.95em}\
        form{display:inline}button{cursor:pointer}figure{display:inline-block;margin:.4em 1em .8em 0;vertical-align:top}\
        figcaption{font-weight:bold;font-size:.95em}svg.chart{width:36em;height:9em;display:block}svg.chart text{font-size:11px;fill:#555}\
        .legend{font-size:.85em;max-width:48em}.key{white-space:nowrap;margin-right:.8em}.age{color:#555}
        """
}
