internal import CurlShim

/// What libcurl reads and writes during one transfer, kept alive until the transfer ends.
final class CurlTransfer {
    var received: [UInt8] = []
    var upload: [UInt8] = []
    var uploaded = 0
    let errorText: UnsafeMutablePointer<CChar> = {
        let text = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        text.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        return text
    }()
    private var lists: [UnsafeMutablePointer<curl_slist>] = []
    private var kept: [UnsafeMutableRawBufferPointer] = []

    /// `items` as a libcurl string list, freed with the transfer.
    func list(_ items: [String]) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for item in items { list = curl_slist_append(list, item) }
        if let list { lists.append(list) }
        return list
    }

    /// A copy of `bytes` at an address that stays valid for the transfer (never nil, even when empty).
    func keep(_ bytes: [UInt8]) -> UnsafeRawPointer {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        copy.copyBytes(from: bytes)
        kept.append(copy)
        return UnsafeRawPointer(copy.baseAddress!)
    }

    deinit {
        lists.forEach { curl_slist_free_all($0) }
        kept.forEach { $0.deallocate() }
        errorText.deallocate()
    }
}

/// libcurl's write callback: appends to the received bytes of the `CurlTransfer` passed as context.
func receiveIntoTransfer(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    transfer.received.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}

/// libcurl's read callback: copies the next bytes of the upload of the `CurlTransfer` passed as context; 0 at the end.
func sendFromTransfer(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = min(size * count, transfer.upload.count - transfer.uploaded)
    guard length > 0 else { return 0 }
    transfer.upload.withUnsafeBytes { bytes in
        UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + transfer.uploaded, byteCount: length)
    }
    transfer.uploaded += length
    return length
}
