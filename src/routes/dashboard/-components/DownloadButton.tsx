import { type ReactNode, useState } from 'react';
import { Button } from '../../../ui/button/button';

/**
 * A button that downloads a file the server streams: `link` asks the server for a short-lived signed URL
 * (a plain link carries no bearer token), and the browser downloads it straight to disk, however large.
 * A failure is shown by the API client (its toast); the button is busy meanwhile.
 */
export function DownloadButton({ link, children }: { link: () => Promise<{ data: { url: string } }>; children: ReactNode }) {
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const res = await link();
      const a = document.createElement('a');
      a.href = res.data.url;
      a.download = '';
      document.body.append(a);
      a.click();
      a.remove();
    } catch {
      // the client showed the failure
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="secondary" loading={busy} onClick={() => void run()}>
      {children}
    </Button>
  );
}
