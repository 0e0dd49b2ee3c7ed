/**
 * The link that carries the design (core/designLink.ts): a toolbar button puts it in the address
 * bar and on the clipboard; a page opened on one opens its design as a new, unsaved document.
 */
import { openDesignAction } from '../core/actions.ts';
import { designFragment, linkPayload, readDesignLink } from '../core/designLink.ts';
import { formatCount } from '../core/format.ts';
import { autosave, useStore } from '../store/index.ts';

/**
 * Opens the design the page's fragment carries, if it carries one: null when it carries none,
 * else whether the design was read and opened.
 */
export function openDesignFromLink(hash: string): Promise<boolean> | null {
  const payload = linkPayload(hash);
  if (payload === null) return null;
  return readDesignLink(payload).then((read) => {
    const s = useStore.getState();
    if (!read.ok) {
      s.notify('error', read.error);
      return false;
    }
    s.dispatch(openDesignAction, { design: read.design });
    // A linked design is nobody's saved design yet: its first edit saves a new one.
    autosave.exampleOpened(null);
    s.setSave({ designId: null, savedVersion: null, saveStatus: 'clean', saveMessage: '' });
    return true;
  });
}

export function CopyLinkButton() {
  return (
    <button
      type="button"
      data-testid="copy-design-link"
      title="a link that carries this design itself (compressed in the address), to send or bookmark"
      onClick={async () => {
        const s = useStore.getState();
        const fragment = await designFragment(s.design);
        history.replaceState(null, '', `${location.pathname}${location.search}#${fragment}`);
        const link = location.href;
        try {
          await navigator.clipboard.writeText(link);
          s.notify(
            'info',
            `link copied: it carries the design itself (${formatCount(link.length)} characters)`,
          );
        } catch {
          s.notify(
            'info',
            'the link is in the address bar: copy it from there (the clipboard was not available)',
          );
        }
      }}
    >
      Link
    </button>
  );
}
