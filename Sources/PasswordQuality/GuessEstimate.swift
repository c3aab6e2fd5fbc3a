internal import CZxcvbn
import Domain
import Foundation

/// zxcvbn's estimate of how many guesses a password takes (Debian's `libzxcvbn`, zxcvbn-c: frequency lists from real
/// password breaches, names and words, l33t substitutions, keyboard patterns, sequences, repeats, dates and years).
/// A password estimated below ``minimumGuesses`` — zxcvbn's score 3, "safely unguessable" only from there — is
/// common. zxcvbn-c keeps no state between calls (its dictionaries are compiled in), so calls run at once.
public struct GuessEstimate: PasswordBlocklist {
    /// 10^8 guesses (about 26.6 bits): below it, zxcvbn rates a password "somewhat guessable" at best.
    public static let minimumGuesses = 1e8

    public var minimumBits: Double

    public init(minimumGuesses: Double = Self.minimumGuesses) {
        minimumBits = log2(minimumGuesses)
    }

    /// zxcvbn's entropy estimate of `password`, in bits (log2 of the guesses), with `related` (e.g. the email's
    /// local part and domain, the name) counted as words an attacker tries first.
    public func bits(_ password: String, related: [String] = []) -> Double {
        let words = related.filter { !$0.isEmpty }.map { strdup($0) }
        defer { words.forEach { free($0) } }
        var dictionary: [UnsafePointer<CChar>?] = words.map { UnsafePointer($0) } + [nil]
        return dictionary.withUnsafeMutableBufferPointer { ZxcvbnMatch(password, $0.baseAddress, nil) }
    }

    public func isCommon(_ password: String) -> Bool {
        isCommon(password, related: [])
    }

    public func isCommon(_ password: String, related: [String]) -> Bool {
        bits(password, related: related) < minimumBits
    }
}
