export interface Page {
  limit: number;
  offset: number;
}

export interface Pagination extends Page {
  total: number;
  hasMore: boolean;
}

export function pagination(total: number, page: Page): Pagination {
  return { total, limit: page.limit, offset: page.offset, hasMore: page.offset + page.limit < total };
}
