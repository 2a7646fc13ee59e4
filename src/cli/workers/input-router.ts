import { createLineDecoder } from '../../dialects/detect.js';
import { routesByRun } from '../../dialects/registry.js';
import type { InputDialect } from '../../events/dialect-name.js';
import type { InputLine, KeepLine } from '../../sources/ndjson-lines.js';
import { lineOwner, lineOwnerIn, lineOwnerOfBytes } from './line-owner.js';

/** Where the lines of one input go among `ingest --workers` threads, line by line, in order. */
export interface InputRouter {
  /** The worker of the next line (routed in the input's order). */
  route(line: InputLine): number;
  /** The dialect the line just routed is read in on its worker. */
  readonly dialect: InputDialect;
  /**
   * For worker `self` reading the input itself: which lines to take. While the dialect is
   * unknown, every line (each reader detects it as one thread would); then only its own.
   */
  keepFor(self: number): KeepLine;
}

/**
 * Until the input's dialect is known, its lines go to the home worker, which detects it as one
 * thread would. Once it is a dialect that names its run in every line (behest), every line (the
 * one that told) goes to its run's worker, read in that dialect there; other dialects stay on the
 * home worker, every input of them on the same one: their run ids are derived, and two inputs
 * that begin alike are told apart only where both are read. The main thread routing lines and
 * each worker reading the whole input decide alike: the same lines in the same order give the
 * same answers.
 */
export function createInputRouter(
  given: InputDialect,
  inputName: string,
  workers: number,
): InputRouter {
  const home = 0;
  const detector =
    given === 'auto'
      ? createLineDecoder('auto', { scope: inputName, arrival: () => [0, 0] })
      : undefined;
  let dialect = given;
  let byRun = dialect !== 'auto' && routesByRun(dialect);
  /** The owner `keep` found for the line it just let through (undefined: route decides). */
  let kept: number | undefined;
  return {
    route(line) {
      if (kept !== undefined) {
        const owner = kept;
        kept = undefined;
        return owner;
      }
      if (dialect === 'auto' && detector !== undefined && line.ok) {
        detector.decodeLine(line.text);
        const locked = detector.dialect;
        if (locked !== undefined && locked !== 'native') {
          dialect = locked;
          byRun = routesByRun(dialect);
        }
      }
      return byRun ? lineOwner(line.ok ? line.text : undefined, dialect, inputName, workers) : home;
    },
    get dialect() {
      return byRun ? dialect : given;
    },
    keepFor(self) {
      const mine = (owner: number) => {
        if (owner !== self) return false;
        kept = owner;
        return true;
      };
      return {
        text: (text, from, to) =>
          dialect === 'auto' ||
          mine(byRun ? lineOwnerIn(text, from, to, dialect, inputName, workers) : home),
        bytes: (bytes) =>
          dialect === 'auto' ||
          mine(byRun ? lineOwnerOfBytes(bytes, dialect, inputName, workers) : home),
      };
    },
  };
}
