import{r as e,t}from"./chunk-SHT3W25Y-BWu3gi4S.js";import"./chunk-POPQ4Y6H-w_ipc8mk.js";import"./mermaid.core-CBxAUlgO.js";import"./chunk-F27PBJKO-C18Kngia.js";import"./chunk-L3NEJ4N5-DY1Dn-ZO.js";import"./chunk-OSK3NFVY-BosBkWMI.js";import"./chunk-GVQU2GXP-jmz2mxaj.js";import"./chunk-4HAMMTFA-CBUk1KS4.js";import"./chunk-P2QGCYS3-BHXoOgqo.js";import"./chunk-GMAD6QVW-BaxI1Wcj.js";import"./chunk-PWAF6VOD-DQej-e2a.js";import"./chunk-75Z2AOVW-Cko2B43e.js";import"./chunk-DU6HZSFF-B_mqpF-w.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};