import { readFileSync } from 'node:fs';
import { bundledPriceTable, warmBundledPrices } from './bundled-prices.js';
import { checkPriceList, PriceFileError, priceListTable } from './price-file.js';
import type { PriceList } from './price-file.js';
import { chainPriceTables } from './price-table.js';
import type { PriceTable } from './price-table.js';

/** How costs are priced: a price file's path, a price list, or `false` (no costs). */
export type PricesOption = string | PriceList | false;

/**
 * The sink's price table: the user's prices (a file or a list) before the bundled table; none
 * with `false` or `off`. Throws `PriceFileError` naming the file, and the field, at fault.
 */
export function resolvePriceTable(option: PricesOption | undefined): PriceTable | undefined {
  if (option === false || option === 'off') return undefined;
  const tables: PriceTable[] = [];
  if (typeof option === 'string') tables.push(priceListTable(readPriceFile(option)));
  else if (option !== undefined) tables.push(priceListTable(checkPriceList(option, 'prices')));
  tables.push(bundledPriceTable());
  warmBundledPrices();
  return chainPriceTables(tables);
}

function readPriceFile(path: string): PriceList {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new PriceFileError(`price file ${path}: cannot be read (${code})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PriceFileError(`price file ${path}: not JSON (${(error as Error).message})`);
  }
  return checkPriceList(value, `price file ${path}`);
}
