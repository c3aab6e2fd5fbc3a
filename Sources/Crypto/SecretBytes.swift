internal import CSodium

/// Immutable secret bytes in memory that is zeroed when the last reference goes away.
///
/// `@unchecked Sendable` is sound because the storage is written only during `init` and read-only afterwards.
final class SecretBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    /// Allocates `count` bytes and lets `fill` write them; the memory is zeroed and freed if `fill` throws.
    init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        do {
            try fill(storage)
        } catch {
            Self.release(storage)
            throw error
        }
        self.storage = storage
    }

    var count: Int { storage.count }

    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(storage))
    }

    /// Typed access to the first byte, for C functions taking `const unsigned char *`.
    func withUnsafePointer<Result>(_ body: (UnsafePointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafePointer(storage.baseAddress!.assumingMemoryBound(to: UInt8.self)))
    }

    deinit {
        Self.release(storage)
    }

    private static func release(_ storage: UnsafeMutableRawBufferPointer) {
        sodium_memzero(storage.baseAddress, storage.count)
        storage.deallocate()
    }
}

/// Zeroes a byte array in place, for temporary copies of secrets.
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
}
