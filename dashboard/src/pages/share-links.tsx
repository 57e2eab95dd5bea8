// Where members join: the portal page, the bot's deep link, and a QR code of the portal.
import { useQuery } from "@tanstack/react-query";
import qrcode from "qrcode-generator";
import { useDashboard } from "../context";
import { ErrorNote } from "../ui/kit";
import { CopyAsCode } from "../ui/copy-as-code";

function qrDataUrl(text: string): string {
  const qr = qrcode(0, "M");
  qr.addData(text);
  qr.make();
  return qr.createDataURL(6, 2);
}

export function ShareLinks({ project, plan }: { project: string; plan?: string | undefined }) {
  const { sb } = useDashboard();
  const portal = useQuery({ queryKey: ["portal-url", project], queryFn: () => sb.distribution.portalUrl(project) });
  const deepLink = useQuery({
    queryKey: ["deep-link", project, plan],
    queryFn: () => sb.distribution.deepLink(project, plan ? { plan_id: plan } : {}),
    retry: false,
  });
  const portalUrl = portal.data?.data.portal_url;
  const botUrl = deepLink.data?.data.deep_link;
  return (
    <div className="stack share">
      <ErrorNote error={portal.error} />
      {portalUrl ? (
        <div className="share-row">
          <div>
            <h3>Portal</h3>
            <p>
              <a href={portalUrl} target="_blank" rel="noreferrer">
                {portalUrl}
              </a>
            </p>
            <p className="hint">Members see your plans, pay, and get their invite links here.</p>
          </div>
          <img className="qr" src={qrDataUrl(portalUrl)} alt={`QR code of ${portalUrl}`} width={160} height={160} />
        </div>
      ) : null}
      {botUrl ? (
        <div>
          <h3>Bot link</h3>
          <p>
            <a href={botUrl} target="_blank" rel="noreferrer">
              {botUrl}
            </a>
          </p>
        </div>
      ) : deepLink.error ? (
        <p className="hint">The bot link appears once a bot is connected.</p>
      ) : null}
      <CopyAsCode op="get_portal_url" path={{ project }} />
    </div>
  );
}
