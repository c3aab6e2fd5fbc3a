internal import CMicroHTTPD
internal import MicroHTTPDShim

/// libmicrohttpd's access handler: called with the headers, then with each piece of the body, then
/// with none once it is complete, and again after a resume. `state` holds the connection's `Exchange`.
let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, data, size, state in
    guard let context, let connection, let url, let method, let size, let state else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
    let id = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    guard let stored = state.pointee else {
        core.deadlines.headersArrived(id)
        let received = HTTPRequest(method: String(cString: method), path: String(cString: url), headers: headers(of: connection),
                                   clientAddress: clientAddress(of: connection))
        let head: HTTPRequest
        switch core.screen(received) {
        case .proceed(let request): head = request
        case .answer(let response):
            let exchange = Exchange(head: received, limit: 0, budget: core.bodyBudget)
            state.pointee = Unmanaged.passRetained(exchange).toOpaque()
            exchange.reject()
            return queue(response, on: connection)
        }
        let exchange = Exchange(head: head, limit: core.bodyLimit(head.method, head.path), budget: core.bodyBudget)
        state.pointee = Unmanaged.passRetained(exchange).toOpaque()
        if let announced = head.headers["Content-Length"].flatMap(Int.init), announced > exchange.limit {
            exchange.reject()
            return queue(.contentTooLarge, on: connection)
        }
        return .YES
    }
    let exchange = Unmanaged<Exchange>.fromOpaque(stored).takeUnretainedValue()
    if size.pointee > 0 {
        if let data { exchange.receive(UnsafeRawBufferPointer(start: UnsafeRawPointer(data), count: size.pointee)) }
        core.deadlines.received(size.pointee, on: id)
        size.pointee = 0
        return .YES
    }
    switch exchange.next() {
    case .run(let request):
        core.inFlight.withLock { $0 += 1 }
        core.deadlines.handling(id)
        MHD_suspend_connection(connection)
        let suspended = ConnectionPointer(pointer: connection)
        Task {
            exchange.answer(await core.handler(request))
            MHD_resume_connection(suspended.pointer)
            core.inFlight.withLock { $0 -= 1 }
        }
        return .YES
    case .respond(let response):
        return queue(response, on: connection)
    case .wait:
        return .YES
    }
}

/// Releases the connection's `Exchange` once its request is over, answered or not; the next request's headers
/// must then come in time.
let requestCompleted: MHD_RequestCompletedCallback = { context, connection, state, _ in
    if let context, let connection {
        Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().deadlines
            .requestEnded(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))))
    }
    guard let state, let stored = state.pointee else { return }
    Unmanaged<Exchange>.fromOpaque(stored).release()
    state.pointee = nil
}

/// Watches each connection from its start to its end, for its deadlines (`ConnectionDeadlines`).
let connectionNotified: MHD_NotifyConnectionCallback = { context, connection, _, event in
    guard let context, let connection else { return }
    let deadlines = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().deadlines
    let id = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    if event == .CONNECTION_NOTIFY_STARTED {
        deadlines.opened(id, socket: mhd_shim_connection_fd(connection))
    } else {
        deadlines.closed(id)
    }
}

/// A suspended connection: libmicrohttpd lets any thread resume it.
private struct ConnectionPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let made = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for field in response.headers where MHD_add_response_header(made, field.name, field.value) != .YES { return .NO }
    return MHD_queue_response(connection, UInt32(response.status), made)
}

private func headers(of connection: OpaquePointer) -> HTTPHeaders {
    var fields: [(name: String, value: String)] = []
    withUnsafeMutablePointer(to: &fields) { pointer in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, { context, _, name, value in
            guard let context, let name else { return .YES }
            context.assumingMemoryBound(to: [(name: String, value: String)].self).pointee
                .append((String(cString: name), value.map { String(cString: $0) } ?? ""))
            return .YES
        }, pointer)
    }
    return HTTPHeaders(fields)
}

private func clientAddress(of connection: OpaquePointer) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    guard mhd_shim_client_address(connection, &buffer, buffer.count) == 0 else { return "" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
