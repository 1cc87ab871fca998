// A minimal event emitter (no DOM or Node dependency): on() returns the function that removes
// the listener. A throwing listener does not stop the others; its error goes to "error"
// listeners (or the console when there are none).
export class Emitter {
  constructor() {
    this.listeners = new Map();
  }
  on(name, fn) {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set());
    this.listeners.get(name).add(fn);
    return () => this.listeners.get(name).delete(fn);
  }
  emit(name, ...args) {
    for (const fn of [...(this.listeners.get(name) || [])]) {
      try {
        fn(...args);
      } catch (e) {
        if (name !== "error" && this.listeners.get("error")?.size) this.emit("error", e);
        else console.error("animd-client listener:", e);
      }
    }
  }
}
