import{r as e,t}from"./chunk-SHT3W25Y-BeGiq2-1.js";import"./chunk-POPQ4Y6H-RIO_V0rS.js";import"./mermaid.core-DDWzk49z.js";import"./chunk-F27PBJKO-BErUJO-k.js";import"./chunk-L3NEJ4N5-BkkId4MQ.js";import"./chunk-OSK3NFVY-XOwFcGnC.js";import"./chunk-GVQU2GXP-DkCZz4og.js";import"./chunk-4HAMMTFA-CUTGFCrP.js";import"./chunk-P2QGCYS3-C4ko0NW8.js";import"./chunk-GMAD6QVW-Dtak5-nN.js";import"./chunk-PWAF6VOD-DvgnlnxZ.js";import"./chunk-75Z2AOVW-D9H2Ysx4.js";import"./chunk-DU6HZSFF-D3xJhe5y.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};