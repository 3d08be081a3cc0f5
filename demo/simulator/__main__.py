"""Run the simulated judge: `python -m demo.simulator --port 8765 --latency-ms 1000`."""

import argparse
import signal
import sys
import threading

from demo.simulator.replies import SimulatorState
from demo.simulator.server import SimulatorServer


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Simulated Anthropic Messages API for evalsite.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency-ms", type=int, default=300)
    parser.add_argument("--error-rate", type=float, default=0.0, help="429/500/529 share")
    parser.add_argument("--timeout-rate", type=float, default=0.0, help="hung requests share")
    parser.add_argument("--timeout-hang-s", type=float, default=30.0)
    parser.add_argument("--malformed-rate", type=float, default=0.0)
    parser.add_argument("--flip-rate", type=float, default=0.12, help="second answers flipped")
    parser.add_argument("--retry-after-s", type=int, default=1)
    args = parser.parse_args(argv)

    state = SimulatorState(
        latency_ms=args.latency_ms,
        error_rate=args.error_rate,
        timeout_rate=args.timeout_rate,
        timeout_hang_s=args.timeout_hang_s,
        malformed_rate=args.malformed_rate,
        flip_rate=args.flip_rate,
        retry_after_s=args.retry_after_s,
    )
    server = SimulatorServer((args.host, args.port), state)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print(f"simulated judge listening on http://{args.host}:{args.port}", file=sys.stderr)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
