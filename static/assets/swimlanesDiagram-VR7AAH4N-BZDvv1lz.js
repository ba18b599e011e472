import{r as e,t}from"./chunk-SHT3W25Y-CzcEK8DP.js";import"./chunk-POPQ4Y6H-BfCA4HrL.js";import"./mermaid.core-BfWSdkj8.js";import"./chunk-F27PBJKO-IUDEonu7.js";import"./chunk-L3NEJ4N5-BdeDuqrm.js";import"./chunk-OSK3NFVY-CjI9_lPF.js";import"./chunk-GVQU2GXP-DCLFZokW.js";import"./chunk-4HAMMTFA-B5kWd6xS.js";import"./chunk-P2QGCYS3-k1dAuogA.js";import"./chunk-GMAD6QVW-DoVGSPgP.js";import"./chunk-PWAF6VOD-Ck5DBvBI.js";import"./chunk-75Z2AOVW-BrY6Ur_r.js";import"./chunk-DU6HZSFF-Y_fiyoBd.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};