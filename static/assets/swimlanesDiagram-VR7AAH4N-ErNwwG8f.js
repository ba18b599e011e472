import{r as e,t}from"./chunk-SHT3W25Y-C0x2Sock.js";import"./chunk-POPQ4Y6H-DyNmBv0j.js";import"./mermaid.core-vvkK8mbh.js";import"./chunk-F27PBJKO-DTeh-sRT.js";import"./chunk-L3NEJ4N5-CVfd-75F.js";import"./chunk-OSK3NFVY-B5aVnYE1.js";import"./chunk-GVQU2GXP-DcqvJ-FI.js";import"./chunk-4HAMMTFA-DBBtF79T.js";import"./chunk-P2QGCYS3-HK_yHxsG.js";import"./chunk-GMAD6QVW-4JoSC5nc.js";import"./chunk-PWAF6VOD-CBkpz0nT.js";import"./chunk-75Z2AOVW-BJn-849e.js";import"./chunk-DU6HZSFF-BmDN44eZ.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};