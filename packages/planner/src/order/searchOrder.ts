import type { Design } from '@stagecraft/ir';
import type { OrderSearchOptions, OrderSearchResult } from '../request.ts';

export function searchOrder(_design: Design, _options: OrderSearchOptions): OrderSearchResult {
  throw new Error('searchOrder: being built on branch planner');
}
