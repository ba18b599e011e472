import{r as e,t}from"./chunk-SHT3W25Y-SGV5N9Ux.js";import"./chunk-POPQ4Y6H-KhzCRCIq.js";import"./mermaid.core-D5N-7e1U.js";import"./chunk-F27PBJKO-d0RpRmop.js";import"./chunk-L3NEJ4N5-BUbJ1nts.js";import"./chunk-OSK3NFVY-TFY-DA_m.js";import"./chunk-GVQU2GXP-DiwYJ-DU.js";import"./chunk-4HAMMTFA-DR61yFRv.js";import"./chunk-P2QGCYS3-B8AZqw97.js";import"./chunk-GMAD6QVW-B8YSRzlK.js";import"./chunk-PWAF6VOD-OdTuAJ-a.js";import"./chunk-75Z2AOVW-Dm0ko9bI.js";import"./chunk-DU6HZSFF-DcZ3gEVH.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};