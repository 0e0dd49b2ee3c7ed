import type { LayoutSearchOptions, LayoutSearchRequest, LayoutSearchResult } from '../request.ts';

export async function searchLayouts(
  _request: LayoutSearchRequest,
  _options: LayoutSearchOptions = {},
): Promise<LayoutSearchResult> {
  throw new Error('searchLayouts: being built on branch planner');
}
