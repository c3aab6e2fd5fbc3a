/// The two forms of one code, both in every code email: six digits to type, and a recovery code of 20 base32
/// characters (100 bits, shown in groups of five) that no guessing can reach. Wrong digits are counted — five per code,
/// and per account (``CodeRejection/locked``) — so that they cannot be guessed; the recovery form is never counted nor
/// locked, so a code mailed to the owner lets them in whatever the counters say, however an attacker drove them.
public enum CodeForm: Sendable, Equatable {
    /// The six digits.
    case digits(String)
    /// The recovery code, normalised (upper case, without separators).
    case recovery(String)

    /// The characters of a recovery code (RFC 4648 base32).
    public static let recoveryAlphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    public static let recoveryLength = 20

    /// The form of a submitted code: six digits, or a recovery code whatever its case, spaces and hyphens; nil for
    /// anything else (refused without being counted).
    public init?(_ submitted: String) {
        if submitted.count == 6, submitted.allSatisfy({ $0.isASCII && $0.isNumber }) {
            self = .digits(submitted)
            return
        }
        let normalised = String(submitted.uppercased().filter { $0 != "-" && $0 != " " })
        guard normalised.count == Self.recoveryLength, normalised.allSatisfy(Self.recoveryAlphabet.contains) else { return nil }
        self = .recovery(normalised)
    }

    /// The code as its digest is computed.
    public var value: String {
        switch self {
        case .digits(let code), .recovery(let code): code
        }
    }

    /// A recovery code as mailed: groups of five joined by hyphens.
    public static func display(recovery code: String) -> String {
        stride(from: 0, to: code.count, by: 5).map { offset in
            let start = code.index(code.startIndex, offsetBy: offset)
            return String(code[start..<code.index(start, offsetBy: min(5, code.count - offset))])
        }.joined(separator: "-")
    }
}
