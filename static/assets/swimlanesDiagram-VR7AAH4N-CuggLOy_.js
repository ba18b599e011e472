import{r as e,t}from"./chunk-SHT3W25Y-Eevc08-m.js";import"./chunk-POPQ4Y6H-BOXmeJmi.js";import"./mermaid.core-BmlyIZXm.js";import"./chunk-F27PBJKO-BFntKYAs.js";import"./chunk-L3NEJ4N5-CHUNsh9d.js";import"./chunk-OSK3NFVY-BZqXKn27.js";import"./chunk-GVQU2GXP-CW5Or7zd.js";import"./chunk-4HAMMTFA-aMi-6qCu.js";import"./chunk-P2QGCYS3-BQMuPsqK.js";import"./chunk-GMAD6QVW-1_7m4gAi.js";import"./chunk-PWAF6VOD-BCW5vhWA.js";import"./chunk-75Z2AOVW-vVllm5zp.js";import"./chunk-DU6HZSFF-Dprdl29z.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};