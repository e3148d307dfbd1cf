import Dispatch

/// Where request deadlines and retry backoffs fire.
enum ExchangeTimers {
    static let queue = DispatchQueue(label: "EasyNetwork.timers", attributes: .concurrent)
}
