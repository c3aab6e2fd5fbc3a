import Accounts
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Domain

/// One page of a ListObjectsV2 response: `<ListBucketResult>` with its `<Contents>` and, when more
/// follow, `<NextContinuationToken>`.
struct ListBucketResult {
    var objects: [StoredObject] = []
    var nextContinuationToken: String?

    /// Parses a response body; a permanent error when it is not such a document.
    init(xml: [UInt8]) throws(StoreError) {
        let delegate = Delegate()
        let parser = XMLParser(data: Data(xml))
        parser.delegate = delegate
        guard parser.parse(), delegate.sawRoot else {
            throw StoreError(.permanent, "ListObjectsV2 answered with something else than a ListBucketResult: "
                             + String(decoding: xml.prefix(200), as: UTF8.self))
        }
        objects = delegate.objects
        nextContinuationToken = delegate.isTruncated ? delegate.nextContinuationToken : nil
        if delegate.isTruncated && nextContinuationToken == nil {
            throw StoreError(.permanent, "ListObjectsV2 answered IsTruncated without a NextContinuationToken")
        }
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var objects: [StoredObject] = []
        var nextContinuationToken: String?
        var isTruncated = false
        var sawRoot = false
        private var text = ""
        private var current: (key: String?, size: Int?, modifiedAt: Date?)?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            if name == "ListBucketResult" { sawRoot = true }
            if name == "Contents" { current = (nil, nil, nil) }
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            switch name {
            case "Key" where current != nil: current?.key = text
            case "Size" where current != nil: current?.size = Int(text)
            case "LastModified" where current != nil: current?.modifiedAt = Self.date(text)
            case "Contents":
                if let object = current, let key = object.key, let size = object.size, let date = object.modifiedAt {
                    objects.append(StoredObject(key: key, size: size, modifiedAt: date))
                } else {
                    parser.abortParsing()
                }
                current = nil
            case "IsTruncated": isTruncated = text == "true"
            case "NextContinuationToken": nextContinuationToken = text
            default: break
            }
        }

        /// An ISO 8601 date, with or without fractional seconds (`2024-05-01T12:00:00.000Z`).
        private static func date(_ text: String) -> Date? {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.date(from: text)
        }
    }
}
